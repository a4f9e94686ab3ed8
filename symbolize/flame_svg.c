/* flame_svg.c - a flame graph as one self-contained SVG (flame_svg.h).
 *
 * A frame of the graph is a node of the stack tree, as wide as the weight
 * of its subtree; the tree is walked in frame order, and at each depth a
 * cursor says where the next frame starts (a node's own weight first, its
 * children after it, left to right). Written from the format's description
 * (Brendan Gregg's flame graphs: x is the share of the weight, y the depth,
 * the root "all" at the bottom), not from flamegraph.pl.
 */
#include "flame_svg.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "flame_tree.h"
#include "json.h"

#define SVG_WIDTH 1200
#define PAD 10.0                   /* left and right margins */
#define INNER (SVG_WIDTH - 2 * PAD) /* the width "all" spans */
#define FRAME_H 16
#define TOP 66                     /* title, subtitle, legend */
#define BOTTOM 30                  /* the hovered frame's details */
/* Up to ALL_FRAMES stacks every frame is drawn, however narrow, for the
 * zoom to show; past that, frames narrower than MIN_WIDTH pixels are left
 * out, which bounds the file by the picture. */
#define ALL_FRAMES 50000
#define MIN_WIDTH 0.1
#define FONT_SIZE 12
/* Advance of one character of DejaVu Sans Mono (Debian's default monospace)
 * at FONT_SIZE, rounded up: names are clipped to fit their rectangles. */
#define CHAR_W 7.3
#define MAX_LEGEND 8

struct svg {
	FILE *out;
	const struct flame_svg_opts *o;
	const struct flame_tree *t;
	uint64_t *incl;        /* each node's weight with its subtree's */
	uint64_t *incl_base;   /* a differential graph's: the same of base */
	uint64_t max_change;   /* and the largest change of a frame's */
	uint64_t total;
	uint32_t max_depth;    /* of the frames drawn */
	double min_width;      /* narrower frames are left out */
	uint64_t *next;        /* per depth: where the next frame starts */
	const char *modules[MAX_LEGEND]; /* colour families, rank_modules */
	bool used[MAX_LEGEND];           /* a frame was drawn in this family */
	size_t nmodules;
};

static double width_of(const struct svg *g, uint64_t w)
{
	return g->total ? INNER * (double)w / (double)g->total : INNER;
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

/* Colour families by module: the program's first, then the others by the
 * self weight of their frames, heaviest first, so that the modules that
 * matter get the colours that stand apart. */
static void rank_modules(struct svg *g)
{
	struct { const char *module; uint64_t weight; } m[64];
	size_t nm = 0, i, k;

	if (g->o->main_module)
		g->modules[g->nmodules++] = g->o->main_module;
	for (uint32_t id = 1; id < g->t->nnodes; id++) {
		const char *module = flame_tree_name_module(g->t, g->t->nodes[id].name);

		for (k = 0; module && k < nm && strcmp(m[k].module, module) != 0; k++)
			;
		if (module && k == nm && nm < sizeof(m) / sizeof(m[0]))
			m[nm++].module = module, m[k].weight = 0;
		if (module && k < nm)
			m[k].weight += g->t->nodes[id].weight;
	}
	for (i = 1; i < nm; i++)  /* insertion sort: a few modules */
		for (k = i; k > 0 && m[k].weight > m[k - 1].weight; k--) {
			typeof(m[0]) tmp = m[k];
			m[k] = m[k - 1];
			m[k - 1] = tmp;
		}
	for (i = 0; i < nm && g->nmodules < OTHERS; i++)
		if (!g->o->main_module || strcmp(m[i].module, g->o->main_module) != 0)
			g->modules[g->nmodules++] = m[i].module;
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

/* "1.23 ms, 4.56%": w, and its share of total. */
static void weight_share(const struct svg *g, uint64_t w, uint64_t total, char *buf, size_t size)
{
	double pct = total ? 100.0 * (double)w / (double)total : 0;

	if (g->o->unit)
		snprintf(buf, size, "%" PRIu64 " %s%s, %.2f%%", w, g->o->unit, w == 1 ? "" : "s", pct);
	else if (w < 1000)
		snprintf(buf, size, "%" PRIu64 " ns, %.2f%%", w, pct);
	else if (w < 1000000)
		snprintf(buf, size, "%.2f us, %.2f%%", (double)w / 1e3, pct);
	else if (w < 1000000000)
		snprintf(buf, size, "%.2f ms, %.2f%%", (double)w / 1e6, pct);
	else
		snprintf(buf, size, "%.3f s, %.2f%%", (double)w / 1e9, pct);
}

static void weight_text(const struct svg *g, uint64_t w, char *buf, size_t size)
{
	weight_share(g, w, g->total, buf, size);
}

/* ---- frames ------------------------------------------------------------------ */

/* A differential graph's fill and title: white for no change, deeper red
 * the more the frame grew (from base, trace A, to weight, trace B), blue
 * the more it shrank, against the largest change of any frame. */
static void diff_colour(const struct svg *g, uint64_t weight, uint64_t base, char *fill,
			size_t fsize, char *text, size_t tsize)
{
	uint64_t change = weight > base ? weight - base : base - weight;
	int k = g->max_change ? (int)(200.0 * (double)change / (double)g->max_change) : 0;
	char b[64], w[64];

	if (weight >= base)
		snprintf(fill, fsize, "rgb(255,%d,%d)", 255 - k, 255 - k);
	else
		snprintf(fill, fsize, "rgb(%d,%d,255)", 255 - k, 255 - k);
	weight_share(g, base, g->incl_base[FLAME_ROOT], b, sizeof(b)); /* of A's whole */
	weight_text(g, weight, w, sizeof(w));
	snprintf(text, tsize, "%s (A: %s)%s", w, b, base ? "" : ", new");
}

static void frame(struct svg *g, const char *name, const char *module, uint32_t depth,
		  uint64_t start, uint64_t weight, uint64_t base)
{
	double x = g->total ? INNER * (double)start / (double)g->total : 0;
	double w = width_of(g, weight);
	double y = TOP + (double)(g->max_depth - depth) * FRAME_H;
	size_t fam = depth > 0 ? family_of(g, module) : OTHERS;
	char fill[48], text[160];
	bool dots;
	size_t shown = clip(name, w, &dots);

	colour(&families[fam], name_hash(name), fill, sizeof(fill));
	weight_text(g, weight, text, sizeof(text));
	if (g->o->diff)
		diff_colour(g, weight, base, fill, sizeof(fill), text, sizeof(text));
	fprintf(g->out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-d=\"%u\" data-n=\"",
		x, w, depth);
	xml_str(g->out, name);
	fputs("\"><title>", g->out);
	xml_str(g->out, name);
	if (module) {
		fputs(" (", g->out);
		xml_str(g->out, module);
		fputc(')', g->out);
	}
	fprintf(g->out, ": %s</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\"/><text x=\"%.1f\" y=\"%.1f\">", text, PAD + x, y, w,
		FRAME_H - 1, fill, PAD + x + 3, y + FRAME_H - 4.5);
	xml_text(g->out, name, shown);
	fputs(dots ? "..</text></g>\n" : "</text></g>\n", g->out);
}

/* A node's frame at the cursor of its depth; its children start after its
 * own weight. A frame too narrow to draw skips its subtree, all narrower. */
static int node_frame(void *ctx, uint32_t id)
{
	struct svg *g = ctx;
	const struct flame_node *n = &g->t->nodes[id];
	uint64_t start = g->next[n->depth];

	g->next[n->depth] += g->incl[id];
	if (g->incl[id] == 0 || width_of(g, g->incl[id]) < g->min_width)
		return 1;
	g->next[n->depth + 1] = start + n->weight;
	frame(g, flame_tree_name_text(g->t, n->name), flame_tree_name_module(g->t, n->name),
	      n->depth, start, g->incl[id], g->incl_base ? g->incl_base[id] : 0);
	return 0;
}

/* The subtrees' weights (a child's id is above its parent's), and the
 * depth of the deepest frame wide enough to draw. */
static int measure(struct svg *g)
{
	const struct flame_tree *t = g->t;

	g->incl = calloc(t->nnodes, sizeof(*g->incl));
	if (!g->incl)
		return -ENOMEM;
	for (uint32_t id = 0; id < t->nnodes; id++)
		g->incl[id] = t->nodes[id].weight;
	for (uint32_t id = t->nnodes; id-- > 1;)
		g->incl[t->nodes[id].parent] += g->incl[id];
	g->total = g->incl[FLAME_ROOT];
	if (g->o->diff) {
		if (!(g->incl_base = calloc(t->nnodes, sizeof(*g->incl_base))))
			return -ENOMEM;
		for (uint32_t id = 0; id < t->nnodes; id++)
			g->incl_base[id] = t->nodes[id].base;
		for (uint32_t id = t->nnodes; id-- > 1;)
			g->incl_base[t->nodes[id].parent] += g->incl_base[id];
		for (uint32_t id = 1; id < t->nnodes; id++) {
			uint64_t a = g->incl_base[id], b = g->incl[id], c = a > b ? a - b : b - a;

			if (c > g->max_change)
				g->max_change = c;
		}
	}
	g->min_width = t->nnodes - 1 <= ALL_FRAMES ? 0 : MIN_WIDTH;
	for (uint32_t id = 1; id < t->nnodes; id++)
		if (t->nodes[id].depth > g->max_depth && g->incl[id] > 0 &&
		    width_of(g, g->incl[id]) >= g->min_width)
			g->max_depth = t->nodes[id].depth;
	g->next = calloc((size_t)g->max_depth + 2, sizeof(*g->next));
	return g->next ? 0 : -ENOMEM;
}

/* ---- the document ------------------------------------------------------------ */

/* Click to zoom, hover for details. Positions are kept in data-x/-w (pixels
 * from the left margin, unzoomed) and data-d (depth) of each frame, with
 * three decimals: a frame's end, x + w, is off by up to a thousandth, so
 * the containment tests allow a hundredth; a frame shown inside the zoomed
 * one must also start before its end, so that a sibling narrower than
 * that, just after it, does not pass for a child. */
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
	"  var fd = f ? num(f, 'data-d') : 0, s = W / fw, e = 1e-2;\n"
	"  frames.forEach(function (g) {\n"
	"    var x = num(g, 'data-x'), w = num(g, 'data-w'), d = num(g, 'data-d');\n"
	"    if (d >= fd && x >= fx - e && x < fx + fw - e && x + w <= fx + fw + e) {\n"
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
	      " text { fill: #000; } #reset { cursor: pointer; fill: #06c; }", out);
	/* A differential graph paints an unchanged frame white: without an
	 * outline it melts into the background and into its white neighbours
	 * (one white band of names). The hover rule above stays the stronger. */
	if (g->o->diff)
		fputs(" g.f rect { stroke: #aaa; stroke-width: 0.5; }", out);
	fputs("</style>\n", out);
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

int flame_svg_write(const struct flame_tree *t, const struct flame_svg_opts *o, FILE *out)
{
	struct svg g = { .out = out, .o = o, .t = t };
	int ret = measure(&g);

	if (ret == 0) {
		int height = TOP + (int)(g.max_depth + 1) * FRAME_H + BOTTOM;

		header(&g, height);
		rank_modules(&g);
		ret = flame_tree_walk(t, node_frame, &g);
		/* "all", the root, spans the whole width even with nothing under it. */
		frame(&g, "all", NULL, 0, 0, g.total, g.incl_base ? g.incl_base[FLAME_ROOT] : 0);
		if (!o->diff) /* its colours are the change's, not the modules' */
			legend(&g);
		footer(&g, height);
	}
	free(g.incl);
	free(g.incl_base);
	free(g.next);
	if (ret == 0 && (fflush(out) != 0 || ferror(out)))
		ret = -EIO;
	return ret;
}
