# sparksim: a thin Makefile over CMake. The README's quick start is `make demo` and `make test`.
BUILD ?= build
JOBS ?= $(shell nproc)
SPARKSIM := $(BUILD)/sparksim
DEMO_OUT ?= out/demo

.PHONY: deps configure build demo test format format-check tidy bench clean

deps:
	@./scripts/install_deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job on bundled data: the Azure conversation trace on an H100 / Qwen3-8B profile
# (analytic until measured profiles land), DSpark-7 drafter verifying 3 of its 7 drafts per step.
demo: build
	$(SPARKSIM) run --trace traces/azure_conv_2023.csv \
	  --profile profiles/analytic/h100/qwen3-8b.json --drafter dspark-7 --policy static:k=3 \
	  --seed 1 --out $(DEMO_OUT)

test: build format-check
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# Replay speed (a benchmark, not a test): figures print, nothing is asserted.
bench: build
	@./bench/replay_speed.sh $(SPARKSIM)

format:
	@git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format -i

format-check:
	@git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' | xargs clang-format --dry-run -Werror \
	  || (echo "formatting drift: run 'make format'" && exit 1)

# Naming and bug-prone patterns (.clang-tidy); slow (minutes), so not part of `make test`.
tidy: configure
	@git ls-files '*.cpp' | grep -v '^tests/' | xargs clang-tidy -p $(BUILD) --quiet

clean:
	rm -rf $(BUILD) out
