# SPDX-License-Identifier: MIT
# The layers keep their order (docs/architecture.md): main -> cmd -> bench
# -> core -> sys, with out/ beside core (it may use core and sys; cmd uses
# it). A lower layer never uses a higher one, bench/ never uses cmd/ or
# out/. Checked on the #include lines of src/ and, when the native build's
# objects are there, on their symbols (nm): an undefined symbol of an
# object must be defined in a layer it may use, and a function a header
# names must be defined in a layer that header's may use (a contract in
# the folder of its owner; functions and data alike), and only src/sys/
# names a path under /proc or /sys (a string literal). Two narrower rules: cmd/serve.c uses nothing
# of bench/ (the server loop and the control protocol it shares with the
# net benches are in core/: srvloop.h, netctl.h), and no two helpers of
# bench/ (a .c with a header of its own, as netsrv.c and netload.c) use
# each other (one may call the other, not both). The checks are first run
# on a small sample tree with violations, which they must find.
# tier: fast (tests/run.sh --fast, make test)
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 1

# allowed LAYER: the layers it may use (its own included)
allowed() {
	case $1 in
	sys) echo "sys" ;;
	core) echo "core sys" ;;
	out) echo "out core sys" ;;
	bench) echo "bench core sys" ;;
	cmd) echo "cmd bench out core sys" ;;
	main) echo "main cmd bench out core sys" ;;
	esac
}
RULES="sys:sys core:core,sys out:out,core,sys bench:bench,core,sys cmd:cmd,bench,out,core,sys main:main,cmd,bench,out,core,sys"
# files with a narrower rule than their layer's: NAME (below src/, without
# .c or .o) and the layers it may use
NARROW="cmd/serve:cmd,out,core,sys"
may_use() { case " $(allowed "$1") " in *" $2 "*) return 0 ;; esac; return 1; }
layer_of() { # PATH below src/: its layer
	case $1 in */src/*/*) d=${1%/*}; echo "${d##*/}" ;; *) echo main ;; esac
}
# may_use_from FILE LAYER: may FILE (a path below src/) use LAYER?
may_use_from() {
	n=${1%.[ch]}; n=${n#*src/}
	for r in $NARROW; do
		[ "${r%%:*}" = "$n" ] || continue
		case ",${r#*:}," in *",$2,"*) return 0 ;; esac
		return 1
	done
	may_use "$(layer_of "$1")" "$2"
}

# include_violations ROOT: "file: includes header (layer)" for each #include
# "x.h" of ROOT/src whose header lives in a layer the file may not use
include_violations() {
	for f in "$1"/src/*.c "$1"/src/*/*.[ch]; do
		[ -f "$f" ] || continue
		from=$(layer_of "$f")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
			to=
			case $h in
			*/*) [ -f "$1/src/$h" ] && to=${h%%/*} ;; # "core/bench.h": its layer
			*)
				for d in sys core out bench cmd; do
					[ -f "$1/src/$d/$h" ] && to=$d
				done
				[ -f "$1/src/$h" ] && to=main
				# a src/ header by its bare name: the line does not show its layer
				[ -n "$to" ] && [ "$to" != main ] && echo "${f#"$1"/}: includes $h, not $to/$h"
				;;
			esac
			[ -n "$to" ] || continue
			may_use_from "$f" "$to" || echo "${f#"$1"/}: includes $h ($to/)"
		done
	done
}

# symbol_violations OBJDIR: "object: uses symbol (layer)" for each undefined
# symbol of OBJDIR/src/**/*.o defined by an object of a layer it may not use
symbol_violations() {
	nm -A --defined-only "$1"/src/*.o "$1"/src/*/*.o 2>/dev/null |
		awk '$2 ~ /^[TDBRVWG]$/ { sub(/:[^:]*$/, "", $1); print "D", $3, $1 }' >"$T/syms"
	nm -A -u "$1"/src/*.o "$1"/src/*/*.o 2>/dev/null |
		awk '{ sub(/:$/, "", $1); print "U", $3, $1 }' >>"$T/syms"
	# a path's layer: its directory below src/, or main for src/*.o
	awk -v root="$1/" -v rules="$RULES" -v narrow="$NARROW" '
	function layer(p,   n, a) { n = split(p, a, "/"); return a[n - 1] == "src" ? "main" : a[n - 1] }
	BEGIN {
		n = split(rules, r, " ")
		for (i = 1; i <= n; i++) {
			split(r[i], kv, ":"); m = split(kv[2], us, ",")
			for (j = 1; j <= m; j++) ok[kv[1] "," us[j]] = 1
		}
		n = split(narrow, r, " ")
		for (i = 1; i <= n; i++) {
			split(r[i], kv, ":"); m = split(kv[2], us, ",")
			nar["src/" kv[1] ".o"] = 1
			for (j = 1; j <= m; j++) ok["src/" kv[1] ".o," us[j]] = 1
		}
	}
	$1 == "D" && !($2 in def) { def[$2] = $3; next }
	$1 == "U" && ($2 in def) {
		from = layer($3); to = layer(def[$2]); o = $3; sub("^" root, "", o)
		if (o in nar) from = o
		if (!((from "," to) in ok)) print o ": uses " $2 " (" to "/)"
	}' "$T/syms"
}

# circle_violations ROOT OBJDIR: "a.o <-> b.o" for each two helpers of
# ROOT/src/bench (a .c with its own .h) whose objects use each other
circle_violations() {
	nm -A --defined-only "$2"/src/bench/*.o 2>/dev/null |
		awk '$2 ~ /^[TDBRVWG]$/ { sub(/:[^:]*$/, "", $1); print "D", $3, $1 }' >"$T/csyms"
	nm -A -u "$2"/src/bench/*.o 2>/dev/null | awk '{ sub(/:$/, "", $1); print "U", $3, $1 }' >>"$T/csyms"
	for h in "$1"/src/bench/*.h; do
		if [ -f "${h%.h}.c" ]; then echo "H ${h##*/}"; fi
	done >>"$T/csyms"
	awk '
	function base(p) { sub(/.*\//, "", p); sub(/\.[cho]$/, "", p); return p }
	$1 == "H" { helper[base($2)] = 1; next }
	$1 == "D" && !($2 in def) { def[$2] = base($3); next }
	$1 == "U" && ($2 in def) && def[$2] != base($3) { edge[base($3) " " def[$2]] = 1 }
	END {
		for (e in edge) {
			split(e, ab, " ")
			if (ab[1] < ab[2] && (ab[2] " " ab[1]) in edge && helper[ab[1]] && helper[ab[2]])
				print "src/bench/" ab[1] ".o <-> src/bench/" ab[2] ".o"
		}
	}' "$T/csyms" | sort
}

# header_names ROOT: "H name header" for each function named in
# ROOT/src/*/*.h (a declaration, or a call in an inline function) and each
# object an extern declaration there names (data: tables, flags)
header_names() {
	grep -oH '\b[A-Za-z_][A-Za-z0-9_]*(' "$1"/src/*/*.h | sed 's/($//' | sort -u |
		awk -F: '{ print "H", $2, $1 }'
	for h in "$1"/src/*/*.h; do
		# extern declarations, joined up to their ';', comments and sizes dropped
		awk '/^[[:space:]]*extern[[:space:]]/ { on = 1; d = "" }
			on { d = d " " $0; if (index($0, ";")) { on = 0; print d } }' "$h" |
			sed 's|/\*.*\*/||g; s/\[[^]]*\]/[]/g' |
			grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*(\[\]|,|;)' |
			sed -E 's/[[:space:]]*(\[\]|,|;)$//' | sort -u | sed "s|^|H |; s|\$| $h|"
	done
}

# header_violations ROOT OBJDIR: "header: declares name (defined in layer/)"
# for each function or data object a header of ROOT names (header_names)
# that an object of OBJDIR defines in a layer the header's own layer may
# not use: a contract in the wrong folder
header_violations() {
	header_names "$1" >"$T/hsyms"
	nm -A --defined-only "$2"/src/*.o "$2"/src/*/*.o 2>/dev/null |
		awk '$2 ~ /^[TDBRVWG]$/ { sub(/:[^:]*$/, "", $1); print "D", $3, $1 }' >>"$T/hsyms"
	awk -v root="$1/" -v rules="$RULES" '
	function layer(p,   n, a) { n = split(p, a, "/"); return a[n - 1] == "src" ? "main" : a[n - 1] }
	BEGIN {
		n = split(rules, r, " ")
		for (i = 1; i <= n; i++) {
			split(r[i], kv, ":"); m = split(kv[2], us, ",")
			for (j = 1; j <= m; j++) ok[kv[1] "," us[j]] = 1
		}
	}
	$1 == "H" { h[++nh] = $3; hs[nh] = $2; next }
	$1 == "D" && !($2 in def) { def[$2] = $3 }
	END {
		for (i = 1; i <= nh; i++) {
			if (!(hs[i] in def)) continue
			from = layer(h[i]); to = layer(def[hs[i]]); f = h[i]; sub("^" root, "", f)
			if (!((from "," to) in ok)) print f ": declares " hs[i] " (defined in " to "/)"
		}
	}' "$T/hsyms" | sort
}

# literal_violations ROOT: "file:line: literal" for each string literal
# of ROOT/src outside src/sys/ that is a path under /proc or /sys (only
# src/sys/ reads them, sys.h); words that name such a file in a message
# ("needs root (/proc/sys/vm/drop_caches)") are not paths and pass.
# Programs of their own, not linked with src/sys/ (src/forker/: a static
# binary on libc alone, Makefile), are outside the layers.
OWN_PROGRAMS="forker"
literal_violations() {
	for f in "$1"/src/*.c "$1"/src/*/*.[ch]; do
		d=${f%/*}; d=${d##*/}
		case " sys $OWN_PROGRAMS " in *" $d "*) continue ;; esac
		[ -f "$f" ] || continue
		grep -nE '"/(proc|sys)(/|")' "$f" | grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)' |
			sed -E "s|^([0-9]+):.*(\"/(proc\|sys)[^\"]*\").*|${f#"$1"/}:\1: \2|"
	done
}

# the checks can fail: a sample tree where core includes a bench header,
# sys one of core, bench one of cmd and one of out, out one of bench and
# cmd/serve.c one of bench; core uses a bench variable (bv) and its header
# declares it; core opens a /proc file by name (sys/ may: s2.c; bench/
# may name one in words); the bench helpers h1 and h2 call each other
# (y, a bench that is no helper, and h1 call each other too: allowed; y
# includes h1.h by its bare name, which a line of src/ may not: it names
# the layer, "bench/h1.h")
S=$T/sample
mkdir -p "$S/src/sys" "$S/src/core" "$S/src/bench" "$S/src/cmd" "$S/src/out"
printf '#include "core/c.h"\nint s(void);\nint s(void) { return c(); }\n' >"$S/src/sys/s.c"
printf 'int c(void);\nint o(void); /* out/ declared in core */\nextern int bv; /* bench/ data declared in core */\n' >"$S/src/core/c.h"
printf '#include "bench/b.h"\n#include "core/c.h"\n#include "sys/s.h"\nint c(void) { return b() + bv; }\n' >"$S/src/core/c.c"
printf '#include <stdio.h>\nint p(void);\nint p(void) { return fopen("/proc/stat", "r") != NULL; }\n' >"$S/src/core/p.c"
printf '#include <stdio.h>\nint s2(void);\nint s2(void) { return fopen("/sys/kernel/x", "r") != NULL; }\n' >"$S/src/sys/s2.c"
printf 'const char *w(void);\nconst char *w(void) { return "needs root (/proc/sys/vm/drop_caches)"; }\n' >"$S/src/bench/w.c"
printf 'int s(void);\n' >"$S/src/sys/s.h"
printf 'int b(void);\n' >"$S/src/bench/b.h"
printf '#include "cmd/k.h"\n#include "out/o.h"\n#include "core/c.h"\nint bv = 1;\nint b(void);\nint b(void) { return k() + o() + c(); }\n' >"$S/src/bench/b.c"
printf 'int k(void);\n' >"$S/src/cmd/k.h"
printf '#include "bench/b.h"\nint k(void);\nint k(void) { return b(); }\n' >"$S/src/cmd/k.c"
printf 'int o(void);\n' >"$S/src/out/o.h"
printf '#include "bench/b.h"\n#include "core/c.h"\nint o(void);\nint o(void) { return b() + c(); }\n' >"$S/src/out/o.c"
printf '#include "bench/b.h"\n#include "cmd/k.h"\nint serve(void);\nint serve(void) { return b() + k(); }\n' >"$S/src/cmd/serve.c"
printf 'int h1(void);\n' >"$S/src/bench/h1.h"
printf 'int h2(void);\n' >"$S/src/bench/h2.h"
printf '#include "bench/h2.h"\nint h1(void);\nint y(void);\nint h1(void) { return h2() + y(); }\n' >"$S/src/bench/h1.c"
printf '#include "bench/h1.h"\nint h2(void);\nint h2(void) { return h1(); }\n' >"$S/src/bench/h2.c"
printf '#include "h1.h"\nint y(void);\nint y(void) { return h1(); }\n' >"$S/src/bench/y.c"
include_violations "$S" | sort >"$T/sample.inc"
cat >"$T/sample.want" <<'EOT'
src/bench/b.c: includes cmd/k.h (cmd/)
src/bench/b.c: includes out/o.h (out/)
src/bench/y.c: includes h1.h, not bench/h1.h
src/cmd/serve.c: includes bench/b.h (bench/)
src/core/c.c: includes bench/b.h (bench/)
src/out/o.c: includes bench/b.h (bench/)
src/sys/s.c: includes core/c.h (core/)
EOT
check "include check: finds exactly the sample tree's seven violations (one a header by its bare name)" cmp "$T/sample.inc" "$T/sample.want"
literal_violations "$S" >"$T/sample.lit"
echo 'src/core/p.c:3: "/proc/stat"' >"$T/sample.litwant"
check "literal check: finds the sample's /proc path in core (not sys/'s, not words in bench/)" cmp "$T/sample.lit" "$T/sample.litwant"
if command -v nm >/dev/null && command -v cc >/dev/null; then
	for f in "$S"/src/*/*.c; do
		o=$S/build/${f#"$S"/}; o=${o%.c}.o
		mkdir -p "${o%/*}" && cc -c -I"$S/src" -I"$S/src/sys" -I"$S/src/core" -I"$S/src/bench" -I"$S/src/cmd" -I"$S/src/out" -o "$o" "$f"
	done
	symbol_violations "$S/build" | sort >"$T/sample.sym"
	cat >"$T/sample.symwant" <<'EOT'
src/bench/b.o: uses k (cmd/)
src/bench/b.o: uses o (out/)
src/cmd/serve.o: uses b (bench/)
src/core/c.o: uses b (bench/)
src/core/c.o: uses bv (bench/)
src/out/o.o: uses b (bench/)
src/sys/s.o: uses c (core/)
EOT
	check "symbol check: finds exactly the sample objects' seven violations (one of data)" cmp "$T/sample.sym" "$T/sample.symwant"
	circle_violations "$S" "$S/build" >"$T/sample.circ"
	echo "src/bench/h1.o <-> src/bench/h2.o" >"$T/sample.circwant"
	check "circle check: finds the sample's two bench helpers calling each other" cmp "$T/sample.circ" "$T/sample.circwant"
	header_violations "$S" "$S/build" >"$T/sample.hdr"
	printf 'src/core/c.h: declares bv (defined in bench/)\nsrc/core/c.h: declares o (defined in out/)\n' >"$T/sample.hdrwant"
	check "header check: finds the sample's core header declaring an out/ function and a bench/ variable" cmp "$T/sample.hdr" "$T/sample.hdrwant"
else
	skip "symbol check on the sample (no nm or cc)"
fi

# the tree itself
n=$(ls src/*/*.[ch] | wc -l)
check "src/ has sources to check ($n)" test "$n" -gt 50
include_violations . >"$T/inc"
check "no #include crosses the layers upwards, and each names its layer (sh tools/layer-includes.sh)" test ! -s "$T/inc"
sed 's/^/# layer violation: /' "$T/inc"
literal_violations . >"$T/lit"
check "no /proc or /sys path outside src/sys/" test ! -s "$T/lit"
sed 's/^/# layer violation: /' "$T/lit"
if [ -f build/native/src/main.o ] && command -v nm >/dev/null; then
	symbol_violations build/native >"$T/sym"
	check "no object uses a symbol of a higher layer (nm)" test ! -s "$T/sym"
	sed 's/^/# layer violation: /' "$T/sym"
	circle_violations . build/native >"$T/circ"
	check "no two bench/ helpers use each other (nm)" test ! -s "$T/circ"
	sed 's/^/# layer violation: /' "$T/circ"
	header_violations . build/native >"$T/hdr"
	check "no header declares a function or data of a layer above its own" test ! -s "$T/hdr"
	sed 's/^/# layer violation: /' "$T/hdr"
else
	skip "symbols of the native build (build/native not built, or no nm)"
fi
