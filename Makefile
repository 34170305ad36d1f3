# mlcube-compile: run `make help` for the targets.

GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.7.0
BIN         ?= bin/mlcube-compile
FUZZTIME    ?= 30s
# FUZZFLAGS go to go test -fuzz, such as -parallel=1 on a busy machine.
# -timeout 0: go test's default 10m would end a 10m fuzz run with "context
# deadline exceeded" and no crasher.
FUZZFLAGS   ?=
# Each fuzz target, as package:name.
FUZZ_TARGETS = ./compiler/internal/spec:FuzzSpec ./compiler/internal/source:FuzzEnvFile ./compiler/internal/source:FuzzYAMLSlip ./compiler/internal/spec:FuzzValues ./cmd/mlcube-compile:FuzzCompile ./cmd/mlcube-compile:FuzzLint

.PHONY: help build release test golden lint lint-cubes fmt tidy fuzz fuzz-build fuzz-long bench e2e e2e-up e2e-overhead e2e-down e2e-clean-cache ci

# CUBES are the folders lint-cubes checks, and LINT_EXCLUDE the globs it
# leaves out: MedPerf's containers a cluster cannot run (archives,
# Singularity files, encrypted images), which lint refuses by design.
CUBES ?= examples $(wildcard ../shared/cubes ../shared/cubes-1.0)
LINT_EXCLUDE ?= *archive* *singularity* *encrypted*

help: ## List the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

# VERSION and COMMIT are stamped into the binary; --version prints them.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)

build: ## Build the binary into bin/, stamped with VERSION and COMMIT.
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/mlcube-compile

# RELEASE_TARGETS are the GOOS/GOARCH pairs make release builds into DIST;
# RELEASE_CGO and RELEASE_FLAGS how (static, -trimpath): the command's
# test builds one target with the flags its own build has, which the
# build cache already holds (cmd/mlcube-compile/release_test.go).
RELEASE_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
DIST            ?= dist
RELEASE_CGO     ?= 0
RELEASE_FLAGS   ?= -trimpath

release: ## Build versioned binaries (RELEASE_TARGETS: linux and darwin, amd64 and arm64) into DIST/ (dist/), with DIST/SHA256SUMS; offline.
	@GO="$(GO)" VERSION="$(VERSION)" COMMIT="$(COMMIT)" DIST="$(DIST)" RELEASE_TARGETS="$(RELEASE_TARGETS)" \
		RELEASE_CGO="$(RELEASE_CGO)" RELEASE_FLAGS="$(RELEASE_FLAGS)" bash scripts/release.sh

test: ## Run every test.
	$(GO) test ./...

# GOLDEN_PACKAGES hold golden files, in the order they are rewritten: the
# IR first, then the command's files, then each engine's, which are made
# from the IR and must equal the command's.
GOLDEN_PACKAGES = ./schema ./compiler ./cmd/mlcube-compile ./docs ./backends/argo ./backends/tekton ./backends/job ./backends/render

golden: ## Rewrite the golden files (spec → IR, command, IR → each engine) and the generated docs (docs/reference, docs/cli.md, docs/errors.md); read the diff before committing it.
	@set -e; for p in $(GOLDEN_PACKAGES); do $(GO) test $$p -run 'TestGolden|TestBadInputCorpus|TestReferenceDocs|TestCLIDoc|TestErrorsDoc|TestTroubleshootingDoc' -update >/dev/null; done

# TOOL_MODULES hold development tools, apart from the command's module so
# that go install ./... installs only the command (internal/house tests
# them; go test ./... here does not reach them).
TOOL_MODULES = bench scripts/e2e

lint: ## go vet and staticcheck (pinned), of the command's module and the tools' modules.
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	@set -e; for m in $(TOOL_MODULES); do (cd $$m && $(GO) vet ./... && $(GO) run $(STATICCHECK) ./...); done

lint-cubes: ## Lint every cube, platform and pipeline file under CUBES (examples, ../shared/cubes and cubes-1.0), but LINT_EXCLUDE.
	$(GO) run ./cmd/mlcube-compile lint $(foreach g,$(LINT_EXCLUDE),--exclude '$(g)') $(CUBES)

fuzz: ## Run every fuzz target for FUZZTIME (30s) each; crashes land in testdata/fuzz.
	@GO="$(GO)" FUZZTIME="$(FUZZTIME)" FUZZFLAGS="$(FUZZFLAGS)" FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh

fuzz-build: ## Only compile every fuzz target's instrumented test binary (into the build cache), as make fuzz would.
	@GO="$(GO)" FUZZ_BUILD_ONLY=1 FUZZ_TARGETS="$(FUZZ_TARGETS)" bash scripts/fuzz.sh

fuzz-long: ## Run every fuzz target for 10 minutes (FUZZTIME=10m), as before resolving a reliability issue.
	$(MAKE) fuzz FUZZTIME=10m FUZZFLAGS="$(FUZZFLAGS)"

bench: ## Time compile and lint against kustomize, Jinja2 and cue vet, and at scale (RUNS=15).
	bash scripts/bench.sh

e2e: ## Build (cached), start and stop a local cluster, and run the e2e suite on it.
	bash scripts/e2e/run.sh

e2e-up: ## Start the e2e cluster and leave it up (scripts/e2e/in.sh runs a command in its network namespace).
	bash scripts/e2e/prereqs.sh && bash scripts/e2e/build.sh && bash scripts/e2e/up.sh

e2e-overhead: ## On the cluster e2e-up started: each step's seconds outside its container, ours against a bare run (RUNS=7).
	E2E_OVERHEAD_RUNS=$(or $(RUNS),7) go test -tags e2e -count=1 -timeout 90m -run '^TestE2EStepOverhead$$' -v -exec "nsenter --net=/run/netns/mlcube-e2e" ./e2e

e2e-down: ## Stop what e2e-up started, and remove its network namespace.
	bash scripts/e2e/down.sh

e2e-clean-cache: ## Empty the e2e build cache (outside the checkout; scripts/e2e/versions.sh says where).
	bash scripts/e2e/clean-cache.sh

fmt: ## Format the Go sources.
	gofmt -w $$(git ls-files '*.go')

tidy: ## Tidy go.mod and go.sum.
	$(GO) mod tidy

ci: ## What CI runs: .ci/run.
	bash .ci/run
