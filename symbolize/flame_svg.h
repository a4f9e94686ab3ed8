/* flame_svg.h - a flame graph as one self-contained SVG file.
 *
 * Input is folded stacks (Brendan Gregg's format: "outer;...;inner weight"
 * per line, in any order). Output is an SVG a browser opens with nothing
 * else: no network, no other file. Each frame is a rectangle as wide as its
 * weight with its name clipped to the width, coloured by its module (a
 * legend names them), and a <title> giving name, module, weight and share
 * for hover. An inline script zooms into a frame on click (its ancestors
 * stay as full-width bars, "Reset zoom" or a click on "all" goes back) and
 * shows the hovered frame's title under the graph; a URL ending in
 * #zoom=NAME opens zoomed into NAME's widest frame. Without the script the
 * picture and the titles are all there.
 *
 * Frames narrower than 0.1 pixel are left out (their weight still counts in
 * their parents' widths), which bounds the file by the picture's size, not
 * by the number of stacks.
 */
#ifndef ADA_FLAME_SVG_H
#define ADA_FLAME_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct flame_svg_opts {
	const char *title;     /* the heading; NULL: "Flame graph" */
	const char *subtitle;  /* a second line (what was traced), NULL: none */
	bool count;            /* weights are calls; else nanoseconds */
	const char *main_module; /* gets the first (warm) colours; NULL: none */
	/* The module a frame name belongs to (for its colour and its title), or
	 * NULL if unknown (a string that lasts until flame_svg_write returns);
	 * module_of NULL: no modules, colours by name. */
	const char *(*module_of)(void *ctx, const char *name);
	void *ctx;
};

/* Writes the SVG of the folded stacks text[0..len). Returns 0; -EINVAL
 * after printing one line naming the line of text that is not "frames
 * weight" (source names where the text came from); -ENOMEM; or -EIO if
 * writing failed. */
int flame_svg_write(const char *text, size_t len, const char *source,
		    const struct flame_svg_opts *o, FILE *out);

#endif
