/* outbuf.c - the output buffer's slow paths (see outbuf.h). */
#include <errno.h>
#include <stdlib.h>

#include "outbuf.h"

int outbuf_init(struct outbuf *o, FILE *f)
{
	o->buf = malloc(OUTBUF_SIZE);
	if (!o->buf) {
		fprintf(stderr, "ada-symbolize: out of memory for a %u-byte output buffer\n",
			OUTBUF_SIZE);
		return -ENOMEM;
	}
	o->pos = o->buf;
	o->end = o->buf + OUTBUF_SIZE;
	o->f = f;
	o->err = 0;
	return 0;
}

void outbuf_flush(struct outbuf *o)
{
	size_t n = (size_t)(o->pos - o->buf);

	o->pos = o->buf;
	if (o->err || !n)
		return;
	if (fwrite(o->buf, 1, n, o->f) != n)
		o->err = errno ? -errno : -EIO;
}

void outbuf_write(struct outbuf *o, const void *s, size_t n)
{
	if (n > OUTBUF_SIZE / 2) {
		outbuf_flush(o);
		if (!o->err && fwrite(s, 1, n, o->f) != n)
			o->err = errno ? -errno : -EIO;
		return;
	}
	outbuf_commit(o, fmt_mem(outbuf_reserve(o, n), s, n));
}

int outbuf_close(struct outbuf *o, const char *what)
{
	int err;

	outbuf_flush(o);
	if (!o->err && fflush(o->f) != 0)
		o->err = errno ? -errno : -EIO;
	err = o->err;
	if (err)
		fprintf(stderr, "ada-symbolize: cannot write %s: %s\n", what, strerror(-err));
	free(o->buf);
	o->buf = o->pos = o->end = NULL;
	return err;
}
