/* flame_svg.h - a flame graph as one self-contained SVG file.
 *
 * Input is the stack tree (flame_tree.h), so memory is that of the tree,
 * whatever the length of the stacks' folded text (which grows with the
 * square of a recursion's depth). Output is an SVG a browser opens with
 * nothing else: no network, no other file. Each frame is a rectangle as wide as its
 * weight with its name clipped to the width, coloured by its module (a
 * legend names them), and a <title> giving name, module, weight and share
 * for hover. An inline script zooms into a frame on click (its ancestors
 * stay as full-width bars, "Reset zoom" or a click on "all" goes back) and
 * shows the hovered frame's title under the graph; a URL ending in
 * #zoom=NAME opens zoomed into NAME's widest frame. Without the script the
 * picture and the titles are all there.
 *
 * Every frame with a weight in its subtree is drawn, however narrow, for
 * the zoom to show it; past 50,000 stacks, frames narrower than 0.1 pixel
 * are left out (their weight still counts in their parents' widths), which
 * bounds the file by the picture's size, not by the number of stacks.
 */
#ifndef ADA_FLAME_SVG_H
#define ADA_FLAME_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct flame_svg_opts {
	const char *title;     /* the heading; NULL: "Flame graph" */
	const char *subtitle;  /* a second line (what was traced), NULL: none */
	const char *unit;      /* weights are counts of this ("call", "byte", "block");
				* NULL: nanoseconds */
	const char *main_module; /* gets the first (warm) colours; NULL: none */
	bool diff;             /* a differential graph: widths by weight (trace B),
				* colours by the change from base (trace A): red
				* grew, blue shrank, white the same */
};

struct flame_tree;

/* Writes the SVG of the stacks of t (a frame's module is its name's, as
 * the tree has it). Returns 0, -ENOMEM, or -EIO if writing failed. */
int flame_svg_write(const struct flame_tree *t, const struct flame_svg_opts *o, FILE *out);

#endif
