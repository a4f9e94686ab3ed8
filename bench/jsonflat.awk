# jsonflat.awk - print every scalar of a JSON document as "PATH<TAB>VALUE".
#
# PATH joins object keys and array indices with '.', so manifest.json gives
# lines such as "threads.0.events<TAB>60000006" or "dropped.ring_full<TAB>0".
# Strings are printed without their quotes (escapes other than \" and \\ are
# left as written). Does not depend on how the document is laid out; POSIX awk
# (mawk, gawk, busybox).
{ doc = doc $0 "\n" }

function path(    d, p) {
	p = ""
	for (d = 1; d <= depth; d++)
		p = p (d > 1 ? "." : "") (kind[d] == "[" ? idx[d] : key[d])
	return p
}

function value(v) {
	if (kind[depth] == "{" && want_key[depth]) {
		key[depth] = v
		want_key[depth] = 0
	} else {
		printf "%s\t%s\n", path(), v
	}
}

END {
	n = length(doc)
	depth = 0
	i = 1
	while (i <= n) {
		c = substr(doc, i, 1)
		if (c == "{" || c == "[") {
			depth++
			kind[depth] = c
			idx[depth] = 0
			key[depth] = ""
			want_key[depth] = (c == "{")
			i++
		} else if (c == "}" || c == "]") {
			depth--
			i++
		} else if (c == ",") {
			if (kind[depth] == "[")
				idx[depth]++
			else
				want_key[depth] = 1
			i++
		} else if (c == ":" || c == " " || c == "\t" || c == "\n" || c == "\r") {
			i++
		} else if (c == "\"") {
			s = ""
			for (i++; i <= n; i++) {
				c = substr(doc, i, 1)
				if (c == "\\") {
					c = substr(doc, ++i, 1)
					s = s (c == "\"" || c == "\\" ? c : "\\" c)
				} else if (c == "\"") {
					break
				} else {
					s = s c
				}
			}
			i++
			value(s)
		} else {
			s = ""
			while (i <= n && index(",}] \t\n\r", c) == 0) {
				s = s c
				c = substr(doc, ++i, 1)
			}
			value(s)
		}
	}
}
