# tracer — build, install, test.  `make demo` and `make check` are the two entry points.
PREFIX  ?= /usr/local
DESTDIR ?=
B       := build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
ARCH    := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

WARN    := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS  ?= -O2 -g
# headers by folder: each folder is a stage of the data path (see README's Layout)
INCLUDES := -Iutil -Iprotocol -Icommon -Inodeagent -Inodeagent/store -Inodeagent/server -Inodeagent/export -Icorrelate \
            -Ijobstat -Ijobstat/collect -Ijobstat/compute -Ijobstat/render -I$(B)/bpf -Ibpf
CFLAGS  += -std=gnu11 $(WARN) -D_GNU_SOURCE $(INCLUDES)
LIBS_JSON := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
CFLAGS  += $(shell pkg-config --cflags json-c 2>/dev/null)

# shared by several binaries: the wire protocol to tracerd, and small utilities
PROTOCOL_SRC  := $(wildcard protocol/*.c)
UTIL_SRC      := $(wildcard util/*.c)
COMMON_SRC    := $(PROTOCOL_SRC) $(UTIL_SRC)
# the built-in tool rules: etc/tools.rules itself, made into a C string at build time
RULES_GEN     := $(B)/gen/tools_rules.c
CORRELATE_SRC := $(wildcard correlate/*.c) $(RULES_GEN)
NODEAGENT_SRC := $(filter-out nodeagent/main.c,$(wildcard nodeagent/*.c)) \
                 $(wildcard nodeagent/store/*.c nodeagent/server/*.c nodeagent/export/*.c) $(CORRELATE_SRC)
BPF_SRC       := $(wildcard bpf/*.bpf.c)
BPF_SKELS     := $(patsubst bpf/%.bpf.c,$(B)/bpf/%.skel.h,$(BPF_SRC))
PIN_LAYOUT    := $(B)/bpf/pin_layout.h

NODEAGENT_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(NODEAGENT_SRC))
LIBPROTOCOL   := $(B)/libtracer-protocol.a
LIBUTIL       := $(B)/libtracer-util.a
# what every program links, in link order (the protocol uses the utilities)
LIBCOMMON     := $(LIBPROTOCOL) $(LIBUTIL)
# tracerd without main(): what its unit tests and fuzz targets link
LIBAGENT      := $(B)/libtracer-agent.a

AGENT_LIBS  := -lbpf -lelf -lz -lsqlite3 -lhwloc -lmunge -lcurl -lpthread $(LIBS_JSON)
CLIENT_LIBS := -lmunge $(LIBS_JSON)

BINS := $(B)/tracerd $(B)/tracerctl $(B)/tracer-jobstat $(B)/spank_tracer.so \
        $(B)/tracer-prolog $(B)/tracer-epilog
# the SPANK plugin is loaded by slurmstepd, srun and sbatch: position-independent, self-contained
SPANK_SRC := spank/spank_tracer.c util/cgroup_path.c util/clock.c util/config.c util/config_paths.c util/config_values.c util/procfs.c util/readfile.c \
             util/otlp_settings.c util/safetext.c util/slurm_ids.c \
             protocol/ops.c protocol/protocol.c protocol/protocol_client.c protocol/traceparent.c \
             protocol/trust.c protocol/reply_rows.c
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))

.SECONDARY:
.PHONY: all deps install check unit itest upgrade-builds FORCE integration vmtest demo fuzz bench clean format format-check
all: $(BINS)

deps:
	scripts/install-deps

# ---- BPF: CO-RE objects and skeletons against the committed vmlinux.h
# PIN_LAYOUT_VARIANT=N (tests/integration/test_upgrade.sh only, with its own B=): a tracerd whose
# maps are laid out otherwise (bpf/maps.bpf.h), as a newer build's may be; never set for the product
PIN_LAYOUT_VARIANT ?=
BPF_VARIANT := $(if $(PIN_LAYOUT_VARIANT),-DTRACER_PIN_LAYOUT_VARIANT=$(PIN_LAYOUT_VARIANT))
$(B)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) | $(B)/bpf
	$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(BPF_VARIANT) -Ibpf -c $< -o $@
	llvm-strip -g $@ 2>/dev/null || true
$(B)/bpf/%.skel.h: $(B)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@
# The layout of what tracerd pins (nodeagent/collector_pins.c): a tracerd takes over only maps
# laid out as its own, and reads an old ring only when its events are laid out as its own.
$(PIN_LAYOUT): bpf/process.h bpf/maps.bpf.h bpf/subuid_ranges.h | $(B)/bpf
	{ printf '#define PIN_MAPS_LAYOUT 0x%sULL\n' $$({ cat bpf/process.h bpf/maps.bpf.h bpf/subuid_ranges.h; $(if $(PIN_LAYOUT_VARIANT),echo $(BPF_VARIANT);) } | sha256sum | cut -c1-16); \
	  printf '#define PIN_EVENTS_LAYOUT 0x%sULL\n' $$(sha256sum < bpf/process.h | cut -c1-16); } > $@.tmp && mv $@.tmp $@

# ---- user space
$(RULES_GEN): etc/tools.rules scripts/embed-rules
	@mkdir -p $(dir $@)
	scripts/embed-rules $< > $@.tmp && mv $@.tmp $@

$(B)/obj/%.o: %.c $(BPF_SKELS) $(PIN_LAYOUT) | $(B)/obj
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
-include $(shell find $(B)/obj $(B)/tests -name '*.d' 2>/dev/null)

$(LIBPROTOCOL): $(patsubst %.c,$(B)/obj/%.o,$(PROTOCOL_SRC))
	rm -f $@ && ar rcs $@ $^
$(LIBUTIL): $(patsubst %.c,$(B)/obj/%.o,$(UTIL_SRC))
	rm -f $@ && ar rcs $@ $^
$(LIBAGENT): $(NODEAGENT_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/tracerd: $(B)/obj/nodeagent/main.o $(LIBAGENT) $(LIBCOMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(AGENT_LIBS)
TRACERCTL_SRC := $(wildcard tracerctl/*.c)
$(B)/tracerctl: $(patsubst %.c,$(B)/obj/%.o,$(TRACERCTL_SRC)) $(LIBCOMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(CLIENT_LIBS)
# tracer-jobstat: main.c and its options over libjobstat.a, built in three stages, one folder
# each, that call only downwards (render -> compute <- collect): collect/ does every daemon and
# Slurm request and fills the model (compute/report.h); compute/ works on the model alone,
# printing nothing; render/ prints, asking no daemon.
JOBSTAT_COLLECT := $(wildcard jobstat/collect/*.c)
JOBSTAT_COMPUTE := $(wildcard jobstat/compute/*.c)
JOBSTAT_RENDER  := $(wildcard jobstat/render/*.c)
JOBSTAT_MAIN    := $(wildcard jobstat/*.c)
JOBSTAT_SRC     := $(JOBSTAT_COLLECT) $(JOBSTAT_COMPUTE) $(JOBSTAT_RENDER)
# what compute shares with tracerd: which tools are workflow engines
JOBSTAT_SHARED  := correlate/engine_tools.c
JOBSTAT_LIBS    := -lslurm -lyajl -lpthread
LIBJOBSTAT      := $(B)/libjobstat.a
$(LIBJOBSTAT): $(patsubst %.c,$(B)/obj/%.o,$(JOBSTAT_SRC) $(JOBSTAT_SHARED))
	rm -f $@ && ar rcs $@ $^
$(B)/tracer-jobstat: $(patsubst %.c,$(B)/obj/%.o,$(JOBSTAT_MAIN)) $(LIBJOBSTAT) $(LIBCOMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(CLIENT_LIBS) $(JOBSTAT_LIBS)

$(B)/tracer-prolog: $(B)/obj/prolog/prolog.o $(LIBCOMMON)
	$(CC) $(CFLAGS) -o $@ $^ $(CLIENT_LIBS)
$(B)/tracer-epilog: $(B)/tracer-prolog
	ln -sf tracer-prolog $@

$(B)/spank_tracer.so: $(SPANK_SRC) spank/exports.map $(wildcard util/*.h protocol/*.h) bpf/process.h | $(B)
	$(CC) $(CFLAGS) -fPIC -shared -Wl,--version-script=spank/exports.map -o $@ $(SPANK_SRC) $(LIBS_JSON) -lbpf -ldl

$(B) $(B)/bpf $(B)/obj $(B)/tests $(B)/itest:
	mkdir -p $@

# ---- tests: one cmocka binary per module; integration scripts run the real daemon as root
# tests/unit/testlib.c: the helpers the unit tests share (JSON lookups, scratch directories)
TESTLIB := $(B)/obj/tests/unit/testlib.o
# tests/unit/testagent.c: what the tests of tracerd's files share (a hand-made agent, a store)
TESTAGENT := $(B)/obj/tests/unit/testagent.o
TEST_CFLAGS := -Itests/unit
$(B)/tests/test_jobstat_%: tests/unit/test_jobstat_%.c $(TESTLIB) $(LIBJOBSTAT) $(LIBCOMMON) | $(B)/tests
	$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB) $(LIBJOBSTAT) $(LIBCOMMON) \
	  -lcmocka $(CLIENT_LIBS) $(JOBSTAT_LIBS)
$(B)/tests/test_%: tests/unit/test_%.c $(TESTLIB) $(TESTAGENT) $(LIBAGENT) $(LIBCOMMON) | $(B)/tests
	$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB) $(TESTAGENT) $(LIBAGENT) $(LIBCOMMON) \
	  -lcmocka $(AGENT_LIBS)

# bench/agent-replay's program: the agent as the unit tests put it together, fed events
$(B)/bench/replay: bench/replay.c $(TESTLIB) $(TESTAGENT) $(LIBAGENT) $(LIBCOMMON)
	@mkdir -p $(B)/bench
	$(CC) $(CFLAGS) $(TEST_CFLAGS) -MMD -MP -o $@ $< $(TESTLIB) $(TESTAGENT) $(LIBAGENT) \
	  $(LIBCOMMON) -lcmocka $(AGENT_LIBS)

# request bodies of the OTLP encoders for tests/integration/test_otlp_encode.sh
OTLP_SAMPLES := $(B)/tests/otlp_samples
$(OTLP_SAMPLES): tests/otlp/otlp_samples.c $(LIBAGENT) $(LIBCOMMON) | $(B)/tests
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(LIBAGENT) $(LIBCOMMON) $(AGENT_LIBS)

# every object of the programs: no two source files may call each other (scripts/check-circles)
PRODUCT_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(filter-out $(RULES_GEN),$(NODEAGENT_SRC)) nodeagent/main.c \
               $(COMMON_SRC) $(JOBSTAT_SRC) $(JOBSTAT_MAIN) $(TRACERCTL_SRC) prolog/prolog.c)
unit: $(UNIT_BINS) $(LIBJOBSTAT) $(BINS) $(OTLP_SAMPLES)
	@n=0; for t in $(UNIT_BINS); do echo "== $$t"; out=$$($$t 2>&1); rc=$$?; echo "$$out"; \
	  [ $$rc = 0 ] || exit 1; n=$$((n + $$(echo "$$out" | grep -c '^\[       OK \]'))); done; \
	  echo "unit: $$n tests passed in $(words $(UNIT_BINS)) binaries"
	scripts/check-jobstat-stages $(B)/obj "$(JOBSTAT_COLLECT)" "$(JOBSTAT_COMPUTE)" "$(JOBSTAT_RENDER)"
	@scripts/check-circles $(PRODUCT_OBJ)
	@scripts/check-plugin-symbols $(B)/spank_tracer.so

# what the integration tests run beside the programs, built before they start, by make's own
# parallelism: the test programs (tests/integration/progs, the Python ones copied beside them),
# the other tracerd builds test_upgrade.sh swaps in, the OTLP encoders' sample bodies
ITEST_PROGS := $(patsubst tests/integration/progs/%.c,$(B)/itest/%,$(wildcard tests/integration/progs/*.c)) \
               $(patsubst tests/integration/progs/%.py,$(B)/itest/%.py,$(wildcard tests/integration/progs/*.py))
$(B)/itest/%: tests/integration/progs/%.c $(wildcard tests/integration/progs/*.c) | $(B)/itest
	gcc -O1 -g -pthread -o $@ $<
# plays slurmstepd: the plugin looks up Slurm's symbols in it
$(B)/itest/spank_host: tests/integration/progs/spank_host.c | $(B)/itest
	gcc -O1 -g -Wall -Wextra -rdynamic -o $@ $<
$(B)/itest/%.py: tests/integration/progs/%.py | $(B)/itest
	install -m 755 $< $@
# the other tracerd builds test_upgrade.sh swaps with $(B)/tracerd (tests/integration/upgrade-builds):
# these sources with another map layout, these sources built otherwise (frame pointers: the same
# layout), each checked by its own make; and the build just before pinned programs, from git, once
UPGRADE_BUILDS := $(B)/upgrade/layout/tracerd $(B)/upgrade/same/tracerd $(B)/upgrade/prepin/tracerd
$(B)/upgrade/layout/tracerd: FORCE
	+$(MAKE) -s B=$(B)/upgrade/layout PIN_LAYOUT_VARIANT=1 $@
$(B)/upgrade/same/tracerd: FORCE
	+CFLAGS="-O2 -g -fno-omit-frame-pointer" $(MAKE) -s B=$(B)/upgrade/same $@
$(B)/upgrade/prepin/tracerd:
	+tests/integration/upgrade-builds prepin $(B)/upgrade/prepin
upgrade-builds: $(UPGRADE_BUILDS)
FORCE:
# the test OTLP receiver's decoders (tests/otlp/package.json), from npm
tests/otlp/node_modules/.installed: tests/otlp/package.json
	cd tests/otlp && npm install --no-audit --no-fund > /dev/null
	touch $@
itest: all $(OTLP_SAMPLES) $(ITEST_PROGS) $(UPGRADE_BUILDS) tests/otlp/node_modules/.installed

integration: itest
	tests/integration/run-all

# the kernel matrix: Debian's own kernels under qemu, the kernel-facing tests inside each
vmtest: all
	tests/vm/run $(VM_KERNELS)

# one C style for every file: .clang-format (kernel style, tabs, 100 columns)
format:
	scripts/check-format --fix
format-check:
	scripts/check-format

# everything built at once by make's own parallelism, the unit tests, then the integration files
# side by side by lane with the kernel matrix beside them (tests/integration/run-all)
NPROC := $(shell nproc 2>/dev/null || echo 2)
check: deps
	$(MAKE) format-check
	$(MAKE) -j$(NPROC) all itest $(UNIT_BINS)
	@t0=$$(date +%s); $(MAKE) unit && echo "unit: $$(($$(date +%s) - t0)) s"
	tests/integration/run-all --beside "$(CURDIR)/tests/vm/run $(VM_KERNELS)"

demo: deps
	$(MAKE) all
	scripts/demo

# ---- fuzzing (libFuzzer via clang): FUZZ_SECONDS per target
# One target per tests/fuzz/fuzz_NAME.c, linked with protocol/, util/ and FUZZ_SRC_NAME (+ FUZZ_LIBS_NAME),
# every source compiled with the sanitizers.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SRC_rules    := $(CORRELATE_SRC)
FUZZ_SRC_tools    := $(CORRELATE_SRC)
FUZZ_SRC_workflow := $(CORRELATE_SRC)
FUZZ_SRC_json     := $(CORRELATE_SRC)
FUZZ_SRC_words    := $(CORRELATE_SRC)
FUZZ_SRC_agent    := $(NODEAGENT_SRC)
FUZZ_SRC_argv     := nodeagent/argv.c
FUZZ_LIBS_agent   := $(AGENT_LIBS)
FUZZ_SRC_otlp     := $(wildcard nodeagent/export/otlp*.c)
FUZZ_LIBS_otlp    := -lz
FUZZ_SRC_rows     := jobstat/collect/rows_parse.c jobstat/compute/flatrow.c
FUZZ_LIBS_rows    := -lyajl
.SECONDEXPANSION:
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_check.h tests/fuzz/otlp_wire.h $(COMMON_SRC) $$(FUZZ_SRC_$$*) | $(BPF_SKELS)
	@mkdir -p $(B)/fuzz
	$(CLANG) -std=gnu11 -g -O1 -D_GNU_SOURCE $(INCLUDES) \
	  $(shell pkg-config --cflags json-c) -fsanitize=fuzzer,address,undefined -o $@ \
	  $(filter %.c,$^) $(FUZZ_LIBS_$*) $(LIBS_JSON) -lmunge
fuzz: $(FUZZ_TARGETS)
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

bench: all
	bench/run

install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)/etc/tracer
	install -m 755 $(B)/tracerd $(DESTDIR)$(PREFIX)/sbin/
	install -m 755 $(B)/tracerctl $(B)/tracer-jobstat $(DESTDIR)$(PREFIX)/bin/
	install -m 755 $(B)/tracer-prolog $(DESTDIR)$(PREFIX)/sbin/
	ln -sf tracer-prolog $(DESTDIR)$(PREFIX)/sbin/tracer-epilog
	install -d $(DESTDIR)$(PREFIX)/lib/slurm
	install -m 755 $(B)/spank_tracer.so $(DESTDIR)$(PREFIX)/lib/slurm/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/ 2>/dev/null || true
	install -m 644 man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 644 man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/
	test -e $(DESTDIR)/etc/tracer/tracer.conf || install -m 644 etc/tracer.conf $(DESTDIR)/etc/tracer/
	install -d $(DESTDIR)$(PREFIX)/share/doc/tracer
	install -m 644 etc/tools.rules $(DESTDIR)$(PREFIX)/share/doc/tracer/
	# the units, pointing at where tracerd was installed; systemctl daemon-reload takes them
	install -d $(DESTDIR)/etc/systemd/system
	for u in etc/systemd/*.service; do \
	  sed 's|/usr/local/sbin/|$(PREFIX)/sbin/|' $$u > $(DESTDIR)/etc/systemd/system/$$(basename $$u); \
	done

clean:
	rm -rf $(B)
