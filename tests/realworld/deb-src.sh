#!/bin/sh
# deb-src.sh - make `apt-get source` work on a Debian machine that only has
# binary package entries (Debian's images ship without deb-src).
#
# For every enabled Debian entry of type deb (deb822 *.sources stanzas and
# one-line sources.list entries) it writes the same entry with type deb-src
# into /etc/apt/sources.list.d/ada-deb-src.sources (or .list), leaving the
# machine's own files alone, then runs apt-get update. Does nothing when
# source packages can already be found. Needs root; otherwise prints what to
# do and exits 1.
set -u

DEST=/etc/apt/sources.list.d/ada-deb-src
# A source package every Debian release has: if apt knows it, deb-src works.
PROBE=coreutils

apt-cache showsrc "$PROBE" 2>/dev/null | grep -q '^Package:' && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deb-src.sh: no deb-src entry; as root run $0 (or add deb-src lines for Debian and apt-get update)" >&2
	exit 1
fi

# deb822: copy each enabled stanza whose Types has deb and whose URIs point
# at a Debian archive, with Types: deb-src. Stanzas are separated by blank
# lines; comments are dropped.
stanzas() {
	awk '
	function flush() {
		if (types ~ /(^| )deb( |$)/ && uris ~ /debian/ && enabled !~ /^[Nn]o/) {
			if (n++) print ""
			print "Types: deb-src"
			printf "%s", body
		}
		types = ""; uris = ""; enabled = ""; body = ""
	}
	FNR == 1 { flush() }
	/^[ \t]*#/ { next }
	/^[ \t]*$/ { flush(); next }
	{
		key = tolower($1)
		if (key == "types:") { types = $0; sub(/^[^:]*:[ \t]*/, "", types); next }
		if (key == "uris:") { uris = $0 }
		if (key == "enabled:") { enabled = $2 }
		body = body $0 "\n"
	}
	END { flush() }' "$@"
}

# One-line format: "deb [opts] uri suite comps" becomes "deb-src ...".
lines() {
	sed -n 's/^[ \t]*deb\([ \t].*debian.*\)$/deb-src\1/p' "$@"
}

set -- /etc/apt/sources.list.d/*.sources
[ -e "$1" ] && stanzas "$@" >"$DEST.sources.tmp" || : >"$DEST.sources.tmp"
set -- /etc/apt/sources.list /etc/apt/sources.list.d/*.list
for f in "$@"; do [ -f "$f" ] && [ "$f" != "$DEST.list" ] && lines "$f"; done >"$DEST.list.tmp"

for ext in sources list; do
	if [ -s "$DEST.$ext.tmp" ]; then mv "$DEST.$ext.tmp" "$DEST.$ext"; else rm -f "$DEST.$ext.tmp"; fi
done
[ -f "$DEST.sources" ] || [ -f "$DEST.list" ] ||
	{ echo "deb-src.sh: no Debian deb entry found in /etc/apt to derive deb-src from" >&2; exit 1; }

echo "deb-src.sh: added $(ls "$DEST".* | tr '\n' ' ')" >&2
apt-get update -qq >/dev/null || { echo "deb-src.sh: apt-get update failed" >&2; exit 1; }
apt-cache showsrc "$PROBE" 2>/dev/null | grep -q '^Package:' ||
	{ echo "deb-src.sh: apt still finds no source packages after update" >&2; exit 1; }
