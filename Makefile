# iidbatch — build, test and demo entry points. `make test` is what CI runs (.ci/run).
SWIFT ?= swift
# Debian packages the build and the tests need: librdkafka's headers and library, pkg-config
# to find them, kcat for the command-line tests against the embedded broker, curl for the
# README walkthrough (which a test runs as written), prometheus for its promtool, which checks
# and unit-tests the alert rules in deploy/prometheus/, and systemd for systemd-analyze, which
# rates and verifies deploy/systemd/iidbatch.service. APT_COMMANDS are the programs that show
# they are installed. From PyPI: kubernetes-validate, which checks the Kubernetes objects in
# deploy/ against their schemas.
#
# Only promtool is wanted of Debian's prometheus: it is installed without its recommends (the
# node exporter), and the Prometheus server its installation starts on a systemd host (on :9090,
# the port the README and the manifests give iidbatch's --http-port) is stopped and disabled,
# when this installation put the package there; a prometheus already installed is left alone.
APT_PACKAGES := librdkafka-dev pkg-config kcat curl systemd
APT_PROMETHEUS := prometheus
# Present when systemd runs the host (sd_booted); a test points it elsewhere.
SYSTEMD_RUNTIME ?= /run/systemd/system
APT_COMMANDS := pkg-config kcat curl promtool systemd-analyze
# 1.31 or later: the tests validate against Kubernetes 1.31's schemas, the oldest the manifests are for.
PIP_PACKAGES := kubernetes-validate>=1.31

.PHONY: all deps apt-deps pip-deps build test format format-check demo bench clean

all: build

# Installs the Debian packages when any of them is missing; says clearly what to do when it cannot.
deps: apt-deps pip-deps

pip-deps:
	@command -v kubernetes-validate >/dev/null || { \
		echo "make: installing $(PIP_PACKAGES) from PyPI (kubernetes-validate is missing)"; \
		python3 -m pip install -q --disable-pip-version-check '$(PIP_PACKAGES)' \
			|| { echo "make: error: 'python3 -m pip install $(PIP_PACKAGES)' failed; install it by hand and run make again" >&2; exit 1; }; }

apt-deps:
	@missing=""; \
	for command in $(APT_COMMANDS); do command -v $$command >/dev/null || missing="$$missing $$command"; done; \
	{ pkg-config --exists rdkafka 2>/dev/null && [ -f /usr/include/librdkafka/rdkafka_mock.h ]; } || missing="$$missing librdkafka"; \
	[ -z "$$missing" ] && exit 0; \
	echo "make: installing $(APT_PACKAGES) $(APT_PROMETHEUS) (missing:$$missing)"; \
	if [ "$$(id -u)" = 0 ]; then sudo=""; \
	elif command -v sudo >/dev/null; then sudo="sudo"; \
	else echo "make: error: need root or sudo to run: apt-get install $(APT_PACKAGES) $(APT_PROMETHEUS)" >&2; exit 1; fi; \
	if ! command -v apt-get >/dev/null; then \
		echo "make: error: no apt-get here; install librdkafka (with rdkafka_mock.h) and$$missing by hand" >&2; exit 1; fi; \
	had_prometheus=no; \
	dpkg-query -W -f='$${Status}' $(APT_PROMETHEUS) 2>/dev/null | grep -q 'install ok installed' && had_prometheus=yes; \
	install() { $$sudo /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$$@" >/dev/null; }; \
	{ $$sudo apt-get update -qq && install $(APT_PACKAGES) && install --no-install-recommends $(APT_PROMETHEUS); } \
		|| { echo "make: error: 'apt-get install $(APT_PACKAGES) $(APT_PROMETHEUS)' failed; install them by hand and run make again" >&2; exit 1; }; \
	if [ $$had_prometheus = no ] && [ -d $(SYSTEMD_RUNTIME) ] && systemctl is-enabled --quiet $(APT_PROMETHEUS) 2>/dev/null; then \
		echo "make: stopping and disabling the Prometheus server that installing Debian's prometheus (for promtool) started on :9090"; \
		$$sudo systemctl disable --now $(APT_PROMETHEUS) >/dev/null 2>&1 \
			|| echo "make: warning: 'systemctl disable --now prometheus' failed; stop it by hand if it holds port 9090" >&2; \
	fi

build: deps
	$(SWIFT) build

# Checks the format (.swift-format), builds everything (the tests run the iidbatch binary itself)
# and runs the whole suite. The suite's process holds up to ~1,400 descriptors at once (embedded
# brokers, clients, children's pipes: 1,346 measured), so the soft limit is raised to the hard one
# where a shell's default (often 1,024) is lower.
test: deps format-check
	$(SWIFT) build --build-tests
	ulimit -n "$$(ulimit -Hn)" 2>/dev/null || true; $(SWIFT) test

# The code's format is the toolchain's swift-format with .swift-format; `make format` applies it.
format-check:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests

# The whole system on loopback: embedded Kafka, the emulator with faults, a mixed workload, a
# summary with a reconciliation line. Ends by itself (exit 1 if any request was lost).
demo: deps
	$(SWIFT) build --product iidbatch
	$(SWIFT) run --skip-build iidbatch demo

bench: build
	$(SWIFT) run iidbatch bench kafka

clean:
	rm -rf .build
