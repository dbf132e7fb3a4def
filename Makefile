# SPDX-License-Identifier: MIT
# scalebench — see README.md. `make` builds ./scalebench; `make run` and
# `make check` first install missing Debian packages (when root).
# The version, in this one place: --version, the result's tool.version and
# the tarball's name come from it; man/scalebench.1 (.TH) and
# debian/changelog repeat it literally (dpkg and man need it there), and
# tests/integration/version.sh fails when they disagree.
VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/scalebench
# scalebench-forker (proc.fork -p image=static) is installed here; the
# bench looks beside scalebench first (the build tree), then in
# ../libexec/scalebench from it.
LIBEXECDIR ?= $(PREFIX)/libexec/scalebench
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -Isrc -Isrc/core -Isrc/bench -Isrc/sys -Isrc/out -DSB_VERSION=\"$(VERSION)\"
# History backends: SQLite (embedded) and PostgreSQL (libpq, headers under
# /usr/include/postgresql on Debian).
PG_CPPFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql)
CPPFLAGS += $(PG_CPPFLAGS)
# Libraries: tools/probe.sh links jansson and the io engines
# statically when they link that way (fewer mappings in the process that
# proc.fork forks); STATIC=0 links them all dynamically. One probe run gives
# both the -DHAVE_* defines and the link flags.
STATIC ?= 1
PROBE := STATIC=$(STATIC) sh tools/probe.sh "$(CC)"
# Immediate binding: without it, every child that proc.fork forks resolves
# _exit through the dynamic linker's lazy lookup (some 100 us on a virtual
# machine, 15% of the fork), which measures ld.so rather than fork.
LDFLAGS += -Wl,-z,now
# No PLT: calls into shared libraries go through the GOT, so a forked child
# that calls _exit touches no PLT page; every page a child touches is a
# fault (fork does not copy the page tables of file mappings), some 25 us
# on a virtual machine. Kept apart from CFLAGS so that CFLAGS=... keeps it.
CODEGEN := -fno-plt

# POSIX_ONLY=1: POSIX interfaces alone (the stand-in for the systems this
# machine cannot run); otherwise the native implementation of src/sys/.
ifeq ($(POSIX_ONLY),1)
  CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -DSB_POSIX_ONLY=1
  LDLIBS := $(shell $(PROBE) posix) -lm -lpthread
  SYS_SRC := src/sys/sys_posix.c src/sys/rt_posix.c src/sys/sys_common.c src/sys/sched_posix.c src/sys/ev_common.c src/sys/net_posix.c src/sys/perf_posix.c
  BUILD := build/posix
else
  # optional I/O engines, probed (tools/probe.sh): HAVE_LIBURING, HAVE_LIBAIO
  PROBED := $(shell $(PROBE) native)
  CPPFLAGS += -D_GNU_SOURCE $(filter -D%,$(PROBED))
  LDLIBS := $(filter-out -D%,$(PROBED)) -lm -lpthread
  SYS_SRC := src/sys/sys_linux.c src/sys/sys_loop_linux.c src/sys/wb_linux.c src/sys/rt_linux.c src/sys/sys_common.c src/sys/sched_linux.c \
	src/sys/ev_common.c src/sys/ev_linux.c src/sys/net_linux.c src/sys/perf_linux.c
  BUILD := build/native
endif
ifneq ($(SANITIZE),)
  CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=$(SANITIZE)
  BUILD := $(BUILD)-san
endif

LIB_SRC := $(sort $(wildcard src/core/*.c src/out/*.c src/bench/*.c src/cmd/*.c)) $(SYS_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all setup setup-run setup-deb deb run check test unit fuzz install uninstall clean print-link dist print-version
all: scalebench

ifeq ($(BUILD),build/native)
all: scalebench-forker
scalebench: $(BUILD)/scalebench
	cp $< $@.tmp && mv -f $@.tmp $@
scalebench-forker: $(BUILD)/scalebench-forker
	cp $< $@.tmp && mv -f $@.tmp $@
unit: scalebench-forker
endif

# The statically linked forking process of proc.fork -p image=static: a
# program of its own on libc alone (src/forker/forker.c), never part of
# libsb.
$(BUILD)/scalebench-forker: src/forker/forker.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) -static -o $@ $<

$(BUILD)/scalebench: $(BUILD)/src/main.o $(BUILD)/libsb.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libsb.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# Each object depends on the headers it includes, as the compiler found
# them: -MMD writes them to the .d file beside the object (included at the
# end of this file, this build's alone), -MP adds an empty rule for each
# header so that a header moved or removed is no reason to stop (the
# object is rebuilt: its old header counts as changed).
$(BUILD)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CODEGEN) $(CFLAGS) -MMD -MP -c -o $@ $<

# (a unit test's .d file under tests/deps/: the scripts that run
# $(BUILD)/tests/test_* must find the programs alone)
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libsb.a Makefile
	@mkdir -p $(dir $@)deps
	$(CC) $(CPPFLAGS) -Itests/unit $(WARN) $(CODEGEN) $(CFLAGS) $(LDFLAGS) -MMD -MP -MF $(dir $@)deps/$*.d \
		-o $@ $< $(BUILD)/libsb.a $(LDLIBS)

# test_db writes to a database behind scalebench's back (the program
# itself loads SQLite only when it opens a history database)
$(BUILD)/tests/test_db: LDLIBS += -lsqlite3

unit: $(UNIT_BIN) $(BUILD)/scalebench

# How scalebench is linked, for bench/core-figures.sh (a bare loop linked
# into a binary of scalebench's size).
print-link:
	@echo $(CODEGEN) $(LDFLAGS) -Wl,--whole-archive $(BUILD)/libsb.a -Wl,--no-whole-archive $(LDLIBS)

# What each goal installs (tools/setup-deps.sh): `make run` only what
# building and running need, `make deb` that and the packaging tools,
# `make check` (and test, fuzz) everything the tests need. `make run`
# builds TEST_JOBS (2) at a time, as check does: a fresh machine waits
# for the compiler once per core, not once in all. It runs the first look
# (studies/first-look.job: ten variants of seven benches at the quick
# sizes, every family), not the whole quick suite (`run --quick`, a minute
# or more): on a fresh Debian 12 the whole of `make run` is meant to take
# at most 90 s (bench/fresh-run.sh measures it; docs/packaging.md).
setup:
	@sh tools/setup-deps.sh check

setup-run:
	@sh tools/setup-deps.sh run

setup-deb:
	@sh tools/setup-deps.sh deb

run: setup-run
	$(MAKE) -j$(TEST_JOBS) all
	./scalebench run studies/first-look.job -o scalebench-first-look.json

# The Debian package, from what git holds at HEAD (make dist), built in a
# scratch directory with dpkg-buildpackage; the .deb is written to DEB_DIR
# (default: here) and its path printed last. DEB_BUILD_OPTIONS=nocheck
# skips the package's unit tests. DEB_KEEP=DIR builds in DIR instead and
# keeps it (the source tree, the .deb, .changes, .buildinfo and build.log:
# the tests build the package once per run and share it, tests/run.sh).
DEB_DIR ?= .
DEB_KEEP ?=
deb: setup-deb
	@set -e; if [ -n "$(DEB_KEEP)" ]; then tmp="$(DEB_KEEP)"; mkdir -p "$$tmp"; \
	else tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/scalebench-deb.XXXXXX"); trap 'rm -rf "$$tmp"' EXIT; fi; \
	$(MAKE) -s dist DIST_DIR="$$tmp" >/dev/null; \
	tar -xzf "$$tmp/$(DIST).tar.gz" -C "$$tmp"; \
	( cd "$$tmp/$(DIST)" && dpkg-buildpackage -us -uc -b -J2 ) >"$$tmp/build.log" 2>&1 || \
		{ tail -30 "$$tmp/build.log" >&2; echo "make deb: dpkg-buildpackage failed" >&2; exit 1; }; \
	for f in "$$tmp"/scalebench_$(VERSION)_*.deb; do \
		cp "$$f" "$(DEB_DIR)/" && echo "$(DEB_DIR)/$$(basename "$$f")"; done

# The whole suite: native build, unit + integration tests, then the same
# under AddressSanitizer+UndefinedBehaviorSanitizer, the POSIX-only build,
# and valgrind. One closing line "N passed, N failed".
# The native build goes TEST_JOBS at a time (default 2: the two cores);
# the ASan+UBSan and POSIX-only builds run beside the tests
# (tests/run.sh --build), one after the other, TEST_JOBS at a time at nice
# 5, by a worker of their own, taking the CPU time the tests leave idle;
# each variant's tests wait for its build. (Before any test, one after the
# other, the two took some 70 s of a CI run, 47 s and 23 s; one make over
# the three builds, sharing the job slots, was slower: 273 s against
# 227 s, at load 5.)
# The libFuzzer targets that tests/integration/fuzz.sh runs (`make fuzz`)
# are built with the native build when clang is there: their one long clang
# compile (some 25 s of CPU) then shares the job slots with the native
# objects instead of running at the end, in the serial tier, on one CPU.
TEST_JOBS ?= 2
FUZZ_BIN := build/fuzz/fuzz_result build/fuzz/fuzz_jobfile
check: setup
	$(MAKE) -j$(TEST_JOBS) $(if $(shell command -v clang 2>/dev/null),$(FUZZ_BIN)) all unit
	TEST_JOBS=$(TEST_JOBS) sh tests/run.sh --build

# Everyday work: the native build, its unit tests and the integration
# scripts marked "# tier: fast" (under two minutes); `make check` is the gate.
test: setup
	$(MAKE) -j$(TEST_JOBS) all unit
	TEST_JOBS=$(TEST_JOBS) sh tests/run.sh --fast

# libFuzzer target for the result reader and the writers it feeds (clang):
# `make fuzz` runs it for FUZZ_SECONDS on fuzz/corpus (kept in the repo; new
# inputs go to build/fuzz/corpus, crashes to build/fuzz/crashes/).
FUZZ_SECONDS ?= 60
# FUZZ_SRC is kept by hand: it is the link closure of fuzz_result.c (the
# reader, the writers, what they call), with the sys/ implementation picked
# per file (perf_posix.c, the stub, keeps perf_event_open out of the
# fuzzer); no wildcard gives it, and deriving it would need a fourth build
# of libsb.a by clang to link against. Its rule compiles the sources in one
# command, without .d files: hence every header as a prerequisite.
FUZZ_SRC := fuzz/fuzz_result.c src/out/json.c src/core/result.c src/core/cmpstat.c src/core/probe.c src/core/profile.c src/core/profile_sym.c src/sys/perf_posix.c src/out/report_profile.c src/core/fit.c src/core/usl.c \
	src/core/hist.c src/core/hcmp.c src/core/compare.c src/out/compare_text.c \
	src/out/report.c src/out/report_phase.c src/out/report_snap.c src/out/report_study.c src/out/svg.c src/out/csv.c src/out/text.c src/core/usage.c \
	src/sys/sched_linux.c
build/fuzz/fuzz_result: $(FUZZ_SRC) $(wildcard src/*/*.h) Makefile
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ $(FUZZ_SRC) -ljansson -lm

# The job file reader (fuzz/fuzz_jobfile.c): its corpus is fuzz/corpus-jobfile.
build/fuzz/fuzz_jobfile: fuzz/fuzz_jobfile.c src/core/jobfile.c src/core/jobfile.h Makefile
	@mkdir -p $(dir $@)
	clang $(CPPFLAGS) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -o $@ fuzz/fuzz_jobfile.c src/core/jobfile.c

# The two targets are independent: `make -j2 fuzz` runs them at once.
.PHONY: fuzz-result fuzz-jobfile
fuzz: fuzz-result fuzz-jobfile
fuzz-result: setup build/fuzz/fuzz_result
	@mkdir -p build/fuzz/corpus build/fuzz/crashes
	build/fuzz/fuzz_result -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -dict=fuzz/result.dict -artifact_prefix=build/fuzz/crashes/ \
		-print_final_stats=1 build/fuzz/corpus fuzz/corpus
fuzz-jobfile: setup build/fuzz/fuzz_jobfile
	@mkdir -p build/fuzz/corpus-jobfile build/fuzz/crashes
	build/fuzz/fuzz_jobfile -max_total_time=$(FUZZ_SECONDS) -max_len=16384 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix=build/fuzz/crashes/ \
		-print_final_stats=1 build/fuzz/corpus-jobfile fuzz/corpus-jobfile

install: scalebench scalebench-forker
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)
	install -m 755 scalebench $(DESTDIR)$(BINDIR)/scalebench
	install -d $(DESTDIR)$(LIBEXECDIR)
	install -m 755 scalebench-forker $(DESTDIR)$(LIBEXECDIR)/scalebench-forker
	install -m 644 man/scalebench.1 $(DESTDIR)$(MANDIR)/man1/scalebench.1
	install -m 644 docs/result-schema.json $(DESTDIR)$(DATADIR)/result-schema.json
	install -d $(DESTDIR)$(DATADIR)/studies
	install -m 644 studies/*.job $(DESTDIR)$(DATADIR)/studies/
	@# fleet/: the LAVA test definition, the Ansible playbook and role, the
	@# KCIDB test paths (docs/fleet.md), under $(DATADIR)/fleet
	set -e; for f in $$(find fleet -type f | sort); do \
		m=644; [ -x "$$f" ] && m=755; \
		install -D -m $$m "$$f" "$(DESTDIR)$(DATADIR)/$$f"; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/scalebench $(DESTDIR)$(MANDIR)/man1/scalebench.1
	rm -f $(DESTDIR)$(LIBEXECDIR)/scalebench-forker
	-rmdir $(DESTDIR)$(LIBEXECDIR) 2>/dev/null
	rm -f $(DESTDIR)$(DATADIR)/result-schema.json $(DESTDIR)$(DATADIR)/studies/*.job
	-rmdir $(DESTDIR)$(DATADIR)/studies 2>/dev/null
	rm -rf $(DESTDIR)$(DATADIR)/fleet
	-rmdir $(DESTDIR)$(DATADIR) 2>/dev/null

clean:
	rm -rf build scalebench scalebench-forker

print-version:
	@echo $(VERSION)

# The release tarball: what git holds at HEAD (committed files only, not
# the work tree), under the directory scalebench-VERSION/, written to
# DIST_DIR (default: here).
DIST_DIR ?= .
DIST := scalebench-$(VERSION)
dist:
	@git rev-parse --verify -q HEAD >/dev/null 2>&1 || \
		{ echo "make dist: not a git checkout: the tarball is made with git archive of HEAD" >&2; exit 2; }
	@git diff --quiet HEAD -- 2>/dev/null || \
		echo "make dist: note: uncommitted changes are not in the tarball (it holds HEAD)" >&2
	git archive --format=tar.gz --prefix=$(DIST)/ -o $(DIST_DIR)/$(DIST).tar.gz.tmp HEAD
	mv -f $(DIST_DIR)/$(DIST).tar.gz.tmp $(DIST_DIR)/$(DIST).tar.gz
	@echo "$(DIST_DIR)/$(DIST).tar.gz"

# The headers each object and unit test includes (-MMD above), of this
# build (native, posix, -san) alone; missing before the first build.
-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/deps/%.d)
