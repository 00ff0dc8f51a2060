# SPDX-License-Identifier: GPL-2.0
# Hazard pointers for Linux 6.12: build a kernel with the series, boot it
# under QEMU (TCG), run the torture test and the user workloads, check logs.
#
#   make [all]       prepare the tree, build KERNEL, build the initramfs, boot
#                    the TORTURE_TYPE torture test for DURATION s, then the
#                    user workloads (stress-ng tun, close+dup, and the fd
#                    table expansion latency), print the summary; exits 0
#                    only when the test says SUCCESS and both logs are clean
#   make test        the matrix of configs/tests.list (TESTS= for a subset)
#   make soak        the same matrix with every torture boot DURATION seconds
#                    long (default 600 for soak)
#   make soak-next   the next entry of the matrix, in a fixed rotation, for
#                    DURATION s (default 1800); appends a row to
#                    docs/data/soak.tsv
#   make test-next   patches/next/ (the lockdep user, and what waits for a
#                    user) on top of the series, in work/next:
#                    configs/tests-next.list (two more kernels; not part of
#                    make test)
#   make test-arm64  every torture row of configs/tests.list that boots the
#                    preempt kernel, booted on arm64 instead (TCG)
#   make deps        install the Debian packages (root)
#   make kernel      build KERNEL            make initramfs  build the initramfs
#   make boot        boot KERNEL with the TORTURE_TYPE test, check its log
#   make check-series  checkpatch --strict, kernel-doc, sparse and a build of
#                    every patch prefix (not part of make test: ~1 min a patch)
#   make bench-refscale  ns per reader section of rcu, srcu, refcnt, hazptr
#                    (refscale, one boot of the 'bench' kernel)
#   make bench-users the converted users against the tree without them:
#                    stress-ng bogo-ops/s, expand_fdtable() latency
#                    (interleaved boots, ~30 min), then bench-fdexpand and
#                    bench-lockdep
#   make bench-fdexpand  expand_fdtable() of a shared table five ways (rcu,
#                    expedited, polled RCU, symmetric and asymmetric hazptr)
#                    with installers running, interleaved boots (~25 min)
#   make bench-fsalt  the fs patch beside the VFS counter-proposal (a table
#                    pre-grown when first shared + expedited RCU): resize
#                    latency, opening 4096 fds, slab per process, IPIs of a
#                    loop of fresh shared tables at 4 and 8 vCPUs (~25 min)
#   make cross-icount  fd_install() compiled for x86-64, arm64 and ppc64le,
#                    before and with the fs patch: listings and counts
#   make bench-lockdep  lockdep_unregister_key() (the lockdep user of
#                    patches/next/, applied to the series as an A/B side):
#                    tc qdisc replace and link add+del on
#                    the debug kernel with synchronize_rcu(),
#                    synchronize_rcu_expedited(), no wait for the qdisc
#                    paths (lockdep_unregister_key_nosync()) and the
#                    hazard pointer
#   make bench-uml   fd_install() + close_fd() timed natively in a kernel
#                    thread: UML kernels (no emulator) of base, series and
#                    control at 12 code layouts, interleaved (~25 min)
#   make native      tools/testing/hazptr: the core built for the host CPU,
#                    its bench (ns per operation) and gate storm beside the
#                    core of COMPARE_REF (an older commit of this
#                    repository), then the native tests
#   make model       models/ checked with spin: the rule by which concurrent
#                    asymmetric waiters share rounds of IPIs (patches/next/)
#                    must hold, and each of its mutants must be caught
#   make bench-retire  hazptr_retire() (patches/next/) under the hazptr-retire torture test:
#                    objects freed per worker pass, backlog (~10 boots)
#   make bench-sync  uncontended hazptr_synchronize() beside
#                    synchronize_rcu_expedited() at 1, 2, 4, 8 vCPUs and
#                    with 64 possible CPUs (5 boots)
#   make bench-switch  context switches (pipe ping-pong) on linux-source-6.12
#                    with and without the series (interleaved boots)
#   make bench       all of them
#   make series      the series as it would be mailed: a fresh extraction,
#                    git am, format-patch with the cover letter (rendered
#                    from docs/cover-letter.in and the bench CSVs),
#                    checkpatch and get_maintainer per patch: results/series/
#   make mutate      break the core (and users) one way at a time, as listed
#                    in configs/mutations/, and show that the tests named by
#                    each mutation catch it (not part of make test);
#                    make mutate-next: configs/mutations/next/ against
#                    make test-next's tests
#   make kcsan       the torture tests and the fd user on a KCSAN_STRICT
#                    kernel (configs/kcsan.list; its own kernel build, so
#                    not part of make test): a KCSAN report naming the
#                    series' code fails, the others are listed
#   make kcsan-lockdep  the lockdep user (patches/next/, work/next) under
#                    KCSAN, PROVE_LOCKING and the function tracer, which
#                    lockdep.o is built without (configs/kcsan-next.list,
#                    ~15 min)
#   make clean       remove work/build and results/ (keeps the tree, ccache)
#   make distclean   also remove the ccache and initramfs; the kernel tree
#                    work/linux only with FORCE=1
#
# Variables: DURATION (60), TORTURE_TYPE (hazptr; hazptr-stack, hazptr-asym,
# hazptr-mixed, hazptr-busted), KERNEL (preempt; see configs/kernels/), SMP
# (2), ACCEL (tcg), TIMEOUT (seconds; default 2 x DURATION + 60), TESTS,
# SKIP_PREPARE=1 (do not run scripts/prepare-tree.sh).

DURATION ?= 60
COMPARE_REF ?= f2f9276
SOAK_DURATION = $(if $(filter command line environment,$(origin DURATION)),$(DURATION),600)
TORTURE_TYPE ?= hazptr
KERNEL ?= preempt
SMP ?= 2
ACCEL ?= tcg
TIMEOUT ?=
TESTS ?=
SKIP_PREPARE ?=
TORTURE_TYPES := hazptr hazptr-stack hazptr-asym hazptr-mixed hazptr-busted
export SMP ACCEL TESTS

uint = $(if $(shell echo '$($(1))' | grep -xE '[1-9][0-9]*'),,$(error $(1) must be a positive integer, not '$($(1))'))
$(call uint,DURATION)
$(call uint,SMP)
$(if $(TIMEOUT),$(call uint,TIMEOUT))
$(if $(filter-out 1,$(words $(TORTURE_TYPE))),$(error TORTURE_TYPE must be one of: $(TORTURE_TYPES)))
$(if $(filter $(TORTURE_TYPE),$(TORTURE_TYPES)),,$(error unknown TORTURE_TYPE '$(TORTURE_TYPE)' (known: $(TORTURE_TYPES))))
$(if $(wildcard configs/kernels/$(KERNEL)),,$(error unknown KERNEL '$(KERNEL)' (known: $(notdir $(wildcard configs/kernels/*)))))

BOOT_TIMEOUT = $(or $(TIMEOUT),$(shell echo $$((2 * $(DURATION) + 60))))
TORTURE_PARAMS = hazptrtorture.torture_type=$(TORTURE_TYPE)
# The user workloads: shared fd tables grown while fds are installed, and
# the expand_fdtable() latency (fd conversion), beside tun devices coming
# and going.  The lockdep user waits in patches/next/: make test-next's
# users-lockdep boot runs it.
# The arm64 guest has no stress-ng: the fd table expansion alone there.
KERNEL_ARCH := $(shell bash -c '. scripts/lib.sh && . scripts/pipeline.sh && kernel_arch $(KERNEL)')
USERS_PARAMS = $(if $(filter arm64,$(KERNEL_ARCH)),hazptr_job=fdexpand hazptr_fdexpand=13,$(USERS_PARAMS_X86))
USERS_PARAMS_X86 = hazptr_job=stress,fdexpand hazptr_fdexpand=13 \
	hazptr_stress=--tun,$(SMP),--close,$(SMP),--dup,$(SMP),-t,15s,--metrics-brief

.PHONY: all deps prepare prepare-next kernel initramfs boot test test-arm64 test-next soak soak-next check-series series mutate mutate-next kcsan kcsan-lockdep native model bench bench-refscale bench-users bench-fdexpand bench-fsalt cross-icount bench-icount bench-uml bench-fdinstall bench-lockdep bench-retire bench-sync bench-switch clean distclean

all: prepare
	@mkdir -p results
	@{ echo "torture-$(TORTURE_TYPE) $(KERNEL) SUCCESS $(DURATION) $(TORTURE_PARAMS)"; \
	   echo "users $(KERNEL) - 60 $(USERS_PARAMS)"; } >results/main.list
	TESTS_LIST=results/main.list $(if $(TIMEOUT),TIMEOUT=$(TIMEOUT)) TESTS= scripts/run-tests.sh

deps:
	scripts/deps.sh

prepare:
ifeq ($(SKIP_PREPARE),)
	scripts/prepare-tree.sh
else
	@echo "SKIP_PREPARE=1: using work/linux as it is"
endif

kernel: prepare
	scripts/build.sh $(KERNEL)

initramfs:
	scripts/initramfs.sh $(KERNEL_ARCH)

boot:
	scripts/boot.sh -k $(KERNEL) -n boot-$(TORTURE_TYPE) -t $(BOOT_TIMEOUT) -l results/boot-$(TORTURE_TYPE).log -- \
		$(TORTURE_PARAMS) hazptrtorture.shutdown_secs=$(DURATION) hazptrtorture.stat_interval=10 \
		hazptr_job=idle hazptr_idle_max=$$(($(DURATION) + 60))
	scripts/check-log.sh results/boot-$(TORTURE_TYPE).log --expect SUCCESS

test: prepare
	scripts/run-tests.sh

# The torture rows of the preempt kernel, on the arm64 kernel.
test-arm64: prepare
	@mkdir -p results
	awk '!/^#/ && NF >= 5 && $$2 == "preempt" && !/hazptr_job=/ { $$1 = "arm64-" $$1; $$2 = "arm64"; print }' \
		configs/tests.list >results/arm64.list
	TESTS_LIST=$(CURDIR)/results/arm64.list scripts/run-tests.sh

# patches/next/ on top of the series, in its own tree and build directory.
NEXT_ENV := TREE=$(CURDIR)/work/next BUILD=$(CURDIR)/work/build-next
prepare-next:
	$(NEXT_ENV) scripts/prepare-tree.sh --next

test-next: prepare-next
	$(NEXT_ENV) TESTS_LIST=$(CURDIR)/configs/tests-next.list scripts/run-tests.sh

# One entry of the matrix, the next in a fixed rotation, DURATION seconds
# (default 1800); appends a row to docs/data/soak.tsv.
soak-next: prepare
	DURATION=$(if $(filter command line environment,$(origin DURATION)),$(DURATION),1800) scripts/soak-next.sh

# The whole matrix, every torture boot DURATION seconds long (default 600).
soak: prepare
	TEST_DURATION=$(SOAK_DURATION) scripts/run-tests.sh

check-series: prepare
	scripts/check-series.sh

# The mbox, the cover letter and the recipients, from patches/ alone.
series:
	scripts/series.sh

bench-refscale: prepare
	scripts/bench-refscale.sh

# A/B of the user conversions: the tree with and without patches/users/.
bench-users: prepare
	scripts/bench-users.sh
	scripts/bench-fdexpand.sh
	scripts/bench-fsalt.sh
	scripts/bench-lockdep.sh

# expand_fdtable() five ways on the bench kernel.
bench-fdexpand: prepare
	scripts/bench-fdexpand.sh

# The fs patch beside the counter-proposal its maintainer would make.
bench-fsalt: prepare
	scripts/bench-fsalt.sh

# fd_install() as compiled for three architectures, before and with fs.
cross-icount: prepare
	scripts/cross-icount.sh

# Instructions per fd-installing call, base vs series (QEMU -icount).
bench-icount: prepare
	scripts/bench-icount.sh

# fd_install() timed on the host CPU: UML kernels of base, series, control.
bench-uml: prepare
	scripts/bench-uml.sh

# fd_install() timed: base, series, and the series with the path unused.
bench-fdinstall: prepare
	scripts/bench-fdinstall.sh

# lockdep_unregister_key() four ways on the debug kernel (the lockdep
# patch of patches/next/ as one side).
bench-lockdep: prepare
	scripts/bench-lockdep.sh

# The core on the host CPU: ns per operation and the gate storm, beside the
# core before per-slot waits (COMPARE_REF), then the native tests.
native: prepare
	scripts/native.sh compare $(COMPARE_REF)
	TESTS=$$(awk '$$2 == "native" { printf "%s,", $$1 }' configs/tests.list) scripts/run-tests.sh

# The tests of configs/tests-next.list whose KERNEL is 'model' (the rule of
# patches/next/'s shared rounds); no kernel is built.
model:
	TESTS_LIST=$(CURDIR)/configs/tests-next.list TESTS=$$(awk '$$2 == "model" { printf "%s,", $$1 }' configs/tests-next.list) scripts/run-tests.sh

# hazptr_retire() (patches/next/) under the hazptr-retire torture test.
bench-retire: prepare-next
	$(NEXT_ENV) scripts/bench-retire.sh

# Uncontended hazptr_synchronize() against expedited RCU as CPUs are added.
bench-sync: prepare
	scripts/bench-sync.sh

# The scheduler hook's cost: ping-pong context switches, base vs series.
bench-switch: prepare
	scripts/bench-switch.sh

bench: bench-refscale bench-users bench-retire bench-sync bench-switch

# Each mutation of configs/mutations/ must make its tests fail.
mutate: prepare
	scripts/mutate.sh

# Those of configs/mutations/next/, against patches/next/ in work/next.
mutate-next: prepare-next
	$(NEXT_ENV) TESTS_LIST=$(CURDIR)/configs/tests-next.list MUTATIONS=$(CURDIR)/configs/mutations/next scripts/mutate.sh

kcsan: prepare
	TESTS_LIST=$(CURDIR)/configs/kcsan.list scripts/run-tests.sh

kcsan-lockdep: prepare-next
	$(NEXT_ENV) TESTS_LIST=$(CURDIR)/configs/kcsan-next.list scripts/run-tests.sh

clean:
	rm -rf work/build results

# The tree is only removed with FORCE=1: the distro tarball's .gitignore
# ignores everything, so git cannot tell whether new files in it would be lost.
distclean: clean
	rm -rf work/ccache work/initramfs.cpio.gz work/initramfs-*.cpio.gz work/arm64 work/native-arm64
ifeq ($(FORCE),1)
	rm -rf work
else
	@echo "distclean: kept the kernel tree work/linux (FORCE=1 removes it too)"
endif
