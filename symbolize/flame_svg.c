/* flame_svg.c - a flame graph as one self-contained SVG (flame_svg.h).
 *
 * The stacks are sorted frame by frame, so the stacks under one frame are
 * consecutive; a pass over them keeps the frames of the previous stack
 * open, and a frame closes (its rectangle is written) when a stack no
 * longer has it. Written from the format's description (Brendan Gregg's
 * flame graphs: x is the share of the weight, y the depth, the root "all"
 * at the bottom), not from flamegraph.pl.
 */
#include "flame_svg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define SVG_WIDTH 1200
#define PAD 10.0                   /* left and right margins */
#define INNER (SVG_WIDTH - 2 * PAD) /* the width "all" spans */
#define FRAME_H 16
#define TOP 66                     /* title, subtitle, legend */
#define BOTTOM 30                  /* the hovered frame's details */
#define MIN_WIDTH 0.1              /* narrower frames are left out */
#define FONT_SIZE 12
/* Advance of one character of DejaVu Sans Mono (Debian's default monospace)
 * at FONT_SIZE, rounded up: names are clipped to fit their rectangles. */
#define CHAR_W 7.3
#define MAX_LEGEND 8

struct stack {
	const char *s;         /* the frames, ';' between them */
	size_t len;            /* up to the space before the weight */
	uint64_t weight;
};

struct open_frame {
	const char *name;
	size_t len;
	uint64_t start;        /* weight before it, from the left */
};

struct svg {
	FILE *out;
	const struct flame_svg_opts *o;
	uint64_t total;
	uint32_t max_depth;
	char *name;            /* the frame being written, NUL-terminated */
	size_t name_cap;
	const char *modules[MAX_LEGEND]; /* in order of appearance: colour families */
	bool used[MAX_LEGEND];           /* a frame was drawn in this family */
	size_t nmodules;
};

/* ---- input ------------------------------------------------------------------- */

/* "frames weight": the weight is the digits after the last space. */
static bool parse_line(const char *s, size_t len, struct stack *st)
{
	size_t sp = len;

	while (sp > 0 && s[sp - 1] != ' ')
		sp--;
	if (sp < 2 || sp == len)
		return false;
	uint64_t w = 0;
	for (size_t i = sp; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || w > (UINT64_MAX - 9) / 10)
			return false;
		w = w * 10 + (uint64_t)(s[i] - '0');
	}
	*st = (struct stack){ .s = s, .len = sp - 1, .weight = w };
	return true;
}

static int parse(const char *text, size_t len, const char *source, struct stack **out, size_t *n)
{
	size_t cap = 0, line = 0;
	struct stack *v = NULL;

	*n = 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;

		line++;
		if (end > i) {
			if (*n == cap) {
				cap = cap ? cap * 2 : 256;
				struct stack *b = realloc(v, cap * sizeof(*b));
				if (!b) {
					free(v);
					return -ENOMEM;
				}
				v = b;
			}
			if (!parse_line(text + i, end - i, &v[*n])) {
				fprintf(stderr, "ada-symbolize: %s: line %zu: expected \"frame;frame;... "
					"weight\" (folded stacks)\n", source, line);
				free(v);
				return -EINVAL;
			}
			if (v[*n].weight > 0)
				(*n)++;
		}
		i = end + 1;
	}
	*out = v;
	return 0;
}

/* Frame by frame: the end of a frame sorts before any character, so "a"
 * comes right before "a;b", and a frame's stacks are consecutive. */
static int frame_order(const void *pa, const void *pb)
{
	const struct stack *a = pa, *b = pb;

	for (size_t i = 0;; i++) {
		int ca = i < a->len ? (a->s[i] == ';' ? 1 : (uint8_t)a->s[i] + 2) : 0;
		int cb = i < b->len ? (b->s[i] == ';' ? 1 : (uint8_t)b->s[i] + 2) : 0;

		if (ca != cb || ca == 0)
			return ca - cb;
	}
}

/* ---- colours ----------------------------------------------------------------- */

struct family {
	uint8_t r, dr, g, dg, b, db;   /* base and span of each channel */
};

/* Warm for the program's module (main_module), then cool and distinct
 * families for the others, the heaviest first (rank_modules), and grey for
 * the rest. */
static const struct family families[MAX_LEGEND] = {
	{ 205, 50, 50, 100, 0, 55 },   /* red to orange */
	{ 40, 60, 140, 60, 200, 55 },  /* blue */
	{ 50, 60, 170, 60, 60, 50 },   /* green */
	{ 160, 60, 100, 50, 200, 55 }, /* purple */
	{ 40, 40, 180, 50, 170, 50 },  /* teal */
	{ 200, 50, 100, 50, 140, 50 }, /* pink */
	{ 170, 40, 170, 40, 80, 40 },  /* olive */
	{ 140, 40, 140, 40, 140, 40 }, /* grey: every further module */
};
#define OTHERS (MAX_LEGEND - 1)

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* name[0..len) NUL-terminated in g->name. */
static int set_name(struct svg *g, const char *name, size_t len)
{
	if (len + 1 > g->name_cap) {
		char *b = realloc(g->name, len + 1);
		if (!b)
			return -ENOMEM;
		g->name = b;
		g->name_cap = len + 1;
	}
	memcpy(g->name, name, len);
	g->name[len] = '\0';
	return 0;
}

static const char *module_of(struct svg *g)
{
	return g->o->module_of ? g->o->module_of(g->o->ctx, g->name) : NULL;
}

/* Colour families by module: the program's first, then the others by the
 * self weight of their frames, heaviest first, so that the modules that
 * matter get the colours that stand apart. */
static int rank_modules(struct svg *g, const struct stack *v, size_t n)
{
	struct { const char *module; uint64_t weight; } m[64];
	size_t nm = 0, i, k;

	if (g->o->main_module)
		g->modules[g->nmodules++] = g->o->main_module;
	for (i = 0; i < n && g->o->module_of; i++) {
		const char *leaf = v[i].s + v[i].len;

		while (leaf > v[i].s && leaf[-1] != ';')
			leaf--;
		if (set_name(g, leaf, (size_t)(v[i].s + v[i].len - leaf)) < 0)
			return -ENOMEM;
		const char *module = module_of(g);
		for (k = 0; module && k < nm && strcmp(m[k].module, module) != 0; k++)
			;
		if (module && k == nm && nm < sizeof(m) / sizeof(m[0]))
			m[nm++].module = module, m[k].weight = 0;
		if (module && k < nm)
			m[k].weight += v[i].weight;
	}
	for (i = 1; i < nm; i++)  /* insertion sort: a few modules */
		for (k = i; k > 0 && m[k].weight > m[k - 1].weight; k--) {
			typeof(m[0]) t = m[k];
			m[k] = m[k - 1];
			m[k - 1] = t;
		}
	for (i = 0; i < nm && g->nmodules < OTHERS; i++)
		if (!g->o->main_module || strcmp(m[i].module, g->o->main_module) != 0)
			g->modules[g->nmodules++] = m[i].module;
	return 0;
}

static size_t family_of(struct svg *g, const char *module)
{
	size_t i = 0;

	if (!module)
		return 0;
	while (i < g->nmodules && strcmp(g->modules[i], module) != 0)
		i++;
	if (i == g->nmodules && g->nmodules < OTHERS)
		g->modules[g->nmodules++] = module;
	i = i < g->nmodules ? i : OTHERS;
	g->used[i] = true;
	return i;
}

/* The same name gets the same shade in every graph. */
static void colour(const struct family *f, uint32_t h, char *buf, size_t size)
{
	double v = (h & 0xffff) / 65535.0, w = (h >> 16) / 65535.0;

	snprintf(buf, size, "rgb(%d,%d,%d)", f->r + (int)(f->dr * v), f->g + (int)(f->dg * w),
		 f->b + (int)(f->db * v));
}

/* ---- text -------------------------------------------------------------------- */

/* s[0..len) as XML character data: markup characters escaped, control
 * characters and bytes that are not UTF-8 as '?'. */
static void xml_text(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		uint8_t c = (uint8_t)s[i];
		size_t n;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 || c == 0x7f)
			fputc('?', out);
		else if (c < 0x80)
			fputc(c, out);
		else if ((n = json_utf8_seq((const uint8_t *)s + i, len - i)) > 0) {
			fwrite(s + i, 1, n, out);
			i += n;
			continue;
		} else
			fputc('?', out);
		i++;
	}
}

static void xml_str(FILE *out, const char *s)
{
	xml_text(out, s, strlen(s));
}

/* Characters (not bytes) of the name that fit in width pixels, with ".."
 * in place of the rest; 0 if not even three fit. */
static size_t clip(const char *s, double width, bool *dots)
{
	size_t fit = width > 6 ? (size_t)((width - 6) / CHAR_W) : 0, chars = 0, i;

	*dots = false;
	if (fit < 3)
		return 0;
	for (i = 0; s[i]; i++)
		if (((uint8_t)s[i] & 0xc0) != 0x80 && ++chars > fit)
			break;
	if (!s[i])
		return i;
	/* Too long: keep fit - 2 characters and the dots. */
	chars = 0;
	for (i = 0; s[i]; i++)
		if (((uint8_t)s[i] & 0xc0) != 0x80 && ++chars > fit - 2)
			break;
	*dots = true;
	return i;
}

static void weight_text(const struct svg *g, uint64_t w, char *buf, size_t size)
{
	double pct = g->total ? 100.0 * (double)w / (double)g->total : 0;

	if (g->o->count)
		snprintf(buf, size, "%" PRIu64 " call%s, %.2f%%", w, w == 1 ? "" : "s", pct);
	else if (w < 1000)
		snprintf(buf, size, "%" PRIu64 " ns, %.2f%%", w, pct);
	else if (w < 1000000)
		snprintf(buf, size, "%.2f us, %.2f%%", (double)w / 1e3, pct);
	else if (w < 1000000000)
		snprintf(buf, size, "%.2f ms, %.2f%%", (double)w / 1e6, pct);
	else
		snprintf(buf, size, "%.3f s, %.2f%%", (double)w / 1e9, pct);
}

/* ---- frames ------------------------------------------------------------------ */

static int frame(struct svg *g, const char *name, size_t len, uint32_t depth, uint64_t start,
		 uint64_t end)
{
	/* Nothing weighed: "all" alone, full width. */
	double x = g->total ? INNER * (double)start / (double)g->total : 0;
	double w = g->total ? INNER * (double)(end - start) / (double)g->total : INNER;
	double y = TOP + (double)(g->max_depth - depth) * FRAME_H;

	if (w < MIN_WIDTH)
		return 0;
	if (set_name(g, name, len) < 0)
		return -ENOMEM;

	const char *module = depth > 0 ? module_of(g) : NULL;
	size_t fam = depth > 0 ? family_of(g, module) : OTHERS;
	char fill[32], weight[64];
	bool dots;
	size_t shown = clip(g->name, w, &dots);

	colour(&families[fam], name_hash(g->name), fill, sizeof(fill));
	weight_text(g, end - start, weight, sizeof(weight));
	fprintf(g->out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%u\" data-n=\"",
		x, w, depth);
	xml_str(g->out, g->name);
	fputs("\"><title>", g->out);
	xml_str(g->out, g->name);
	if (module) {
		fputs(" (", g->out);
		xml_str(g->out, module);
		fputc(')', g->out);
	}
	fprintf(g->out, ": %s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", weight, PAD + x, y, w,
		FRAME_H - 1, fill, PAD + x + 3, y + FRAME_H - 4.5);
	xml_text(g->out, g->name, shown);
	fputs(dots ? "..</text></g>\n" : "</text></g>\n", g->out);
	return 0;
}

/* The frames of each stack, in order; a frame of the previous stack that
 * this one does not continue is closed, and the frames after the shared
 * ones opened at the current position. */
static int frames(struct svg *g, const struct stack *v, size_t n)
{
	struct open_frame *open = malloc(((size_t)g->max_depth + 1) * sizeof(*open));
	uint32_t nopen = 0;
	uint64_t pos = 0;
	int ret = open ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && ret == 0; i++) {
		uint32_t d = 0, keep;
		size_t at = 0;

		/* The frames it shares with what is open. */
		while (d < nopen && at < v[i].len) {
			const char *e = memchr(v[i].s + at, ';', v[i].len - at);
			size_t l = e ? (size_t)(e - v[i].s) - at : v[i].len - at;

			if (l != open[d].len || memcmp(open[d].name, v[i].s + at, l) != 0)
				break;
			d++;
			at += l + 1;
		}
		keep = d;
		while (nopen > keep && ret == 0) {
			nopen--;
			ret = frame(g, open[nopen].name, open[nopen].len, nopen + 1, open[nopen].start, pos);
		}
		while (at < v[i].len) {
			const char *e = memchr(v[i].s + at, ';', v[i].len - at);
			size_t l = e ? (size_t)(e - v[i].s) - at : v[i].len - at;

			open[nopen++] = (struct open_frame){ .name = v[i].s + at, .len = l, .start = pos };
			at += l + 1;
		}
		pos += v[i].weight;
	}
	while (nopen > 0 && ret == 0) {
		nopen--;
		ret = frame(g, open[nopen].name, open[nopen].len, nopen + 1, open[nopen].start, pos);
	}
	free(open);
	return ret;
}

/* ---- the document ------------------------------------------------------------ */

/* Click to zoom, hover for details. Positions are kept in data-x/-w (pixels
 * from the left margin, unzoomed) and data-d (depth) of each frame. */
static const char script[] =
	"var W = %g, PAD = %g, CW = %g;\n"
	"var frames = [].slice.call(document.querySelectorAll('g.f'));\n"
	"var details = document.getElementById('details');\n"
	"var reset = document.getElementById('reset');\n"
	"function num(g, a) { return +g.getAttribute(a); }\n"
	"function clip(n, w) {\n"
	"  var c = Math.floor((w - 6) / CW);\n"
	"  if (c < 3) return '';\n"
	"  var s = Array.from(n);\n"
	"  return s.length <= c ? n : s.slice(0, c - 2).join('') + '..';\n"
	"}\n"
	"function place(g, x, w) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  r.setAttribute('x', x.toFixed(1));\n"
	"  r.setAttribute('width', w.toFixed(1));\n"
	"  t.setAttribute('x', (x + 3).toFixed(1));\n"
	"  t.textContent = clip(g.getAttribute('data-n'), w);\n"
	"}\n"
	"function zoom(f) {\n"
	"  var fx = f ? num(f, 'data-x') : 0, fw = f ? num(f, 'data-w') : W;\n"
	"  var fd = f ? num(f, 'data-d') : 0, s = W / fw, e = 1e-3;\n"
	"  frames.forEach(function (g) {\n"
	"    var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
	"    if (d >= fd && x >= fx - e && x + w <= fx + fw + e) {\n"
	"      g.style.display = ''; g.style.opacity = ''; place(g, PAD + (x - fx) * s, w * s);\n"
	"    } else if (d < fd && x <= fx + e && x + w >= fx + fw - e) {\n"
	"      g.style.display = ''; g.style.opacity = '0.6'; place(g, PAD, W);\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"  });\n"
	"  reset.style.display = f && fd > 0 ? '' : 'none';\n"
	"}\n"
	"frames.forEach(function (g) {\n"
	"  g.addEventListener('click', function () { zoom(num(g, 'data-d') > 0 ? g : null); });\n"
	"  g.addEventListener('mouseover', function () {\n"
	"    details.textContent = g.querySelector('title').textContent;\n"
	"  });\n"
	"  g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"});\n"
	"reset.addEventListener('click', function () { zoom(null); });\n"
	"/* #zoom=NAME in the URL: zoomed into the widest frame of NAME. */\n"
	"var want = /^#zoom=(.+)$/.exec(location.hash), best = null;\n"
	"frames.forEach(function (g) {\n"
	"  if (want && g.getAttribute('data-n') === decodeURIComponent(want[1]) &&\n"
	"      (!best || num(g, 'data-w') > num(best, 'data-w'))) best = g;\n"
	"});\n"
	"if (best) zoom(best);\n";

static void header(struct svg *g, int height)
{
	FILE *out = g->out;

	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans Mono, monospace\" "
		"font-size=\"%d\">\n", SVG_WIDTH, height, SVG_WIDTH, height, FONT_SIZE);
	fputs("<style>g.f { cursor: pointer; } g.f:hover rect { stroke: #222; stroke-width: 1; }"
	      " text { fill: #000; } #reset { cursor: pointer; fill: #06c; }</style>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n",
		SVG_WIDTH, height);
	fprintf(out, "<text x=\"%d\" y=\"24\" font-size=\"17\" text-anchor=\"middle\">",
		SVG_WIDTH / 2);
	xml_str(out, g->o->title ? g->o->title : "Flame graph");
	fputs("</text>\n", out);
	if (g->o->subtitle) {
		fprintf(out, "<text x=\"%d\" y=\"42\" fill=\"#555\" text-anchor=\"middle\">",
			SVG_WIDTH / 2);
		xml_str(out, g->o->subtitle);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"reset\" x=\"%g\" y=\"24\" style=\"display:none\">Reset zoom</text>\n",
		PAD);
}

/* The modules, with a swatch of their colour family, once the frames have
 * named them. */
static void legend(struct svg *g)
{
	double x = PAD;
	char fill[32];

	for (size_t i = 0; i < MAX_LEGEND && x < SVG_WIDTH - 100; i++) {
		const char *label = i == OTHERS ? "other modules" : i < g->nmodules ? g->modules[i] : NULL;

		if (!label || !g->used[i])
			continue;
		colour(&families[i], 0x80008000u, fill, sizeof(fill));
		fprintf(g->out, "<rect x=\"%.1f\" y=\"50\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%.1f\" y=\"59\">", x, fill, x + 14);
		xml_str(g->out, label);
		fputs("</text>\n", g->out);
		x += 14 + CHAR_W * (double)strlen(label) + 16;
	}
}

static void footer(struct svg *g, int height)
{
	fprintf(g->out, "<text id=\"details\" x=\"%g\" y=\"%d\"> </text>\n", PAD, height - 10);
	fprintf(g->out, "<script type=\"text/ecmascript\"><![CDATA[\n");
	fprintf(g->out, script, INNER, PAD, CHAR_W);
	fputs("]]></script>\n</svg>\n", g->out);
}

int flame_svg_write(const char *text, size_t len, const char *source,
		    const struct flame_svg_opts *o, FILE *out)
{
	struct svg g = { .out = out, .o = o };
	struct stack *v = NULL;
	size_t n = 0;
	int ret = parse(text, len, source, &v, &n);

	if (ret < 0)
		return ret;
	if (n > 1)
		qsort(v, n, sizeof(*v), frame_order);
	for (size_t i = 0; i < n; i++) {
		uint32_t depth = 1;

		for (size_t k = 0; k < v[i].len; k++)
			depth += v[i].s[k] == ';';
		if (depth > g.max_depth)
			g.max_depth = depth;
		g.total += v[i].weight;
	}
	int height = TOP + (int)(g.max_depth + 1) * FRAME_H + BOTTOM;

	header(&g, height);
	ret = rank_modules(&g, v, n);
	if (ret == 0)
		ret = frames(&g, v, n);
	/* "all", the root, spans the whole width even with nothing under it. */
	if (ret == 0)
		ret = frame(&g, "all", 3, 0, 0, g.total);
	legend(&g);
	footer(&g, height);
	free(v);
	free(g.name);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	return ret;
}
