# The two set-up commands: `make run` (build Release, start the server) and `make test` (build
# the sanitizer Debug preset, run every test). Both install their Debian packages first.

.PHONY: run test unit deps test-deps build release web perft load format format-check tidy \
	net-memory clean fuzz-smoke tsan

# The server on 127.0.0.1:8080 with ./arbiter.db, serving the browser client at /.
run: deps release web
	./build/release/bin/arbiter-server --bind 127.0.0.1 --port 8080 --db ./arbiter.db \
		--web-root client/web/dist

# The browser client, bundled into client/web/dist (needs Node only at build time).
web: deps
	./client/web/build.sh

test: test-deps web
	cmake --preset debug-asan
	cmake --build --preset debug-asan
	ctest --preset debug-asan
	$(MAKE) fuzz-smoke

# The unit label alone (tests/CMakeLists.txt): builds only the unit-test executables, runs in
# seconds. The loop while coding; `make test` runs everything.
unit: test-deps
	cmake --preset debug-asan
	cmake --build --preset unit
	ctest --preset unit

# Every libFuzzer target (tests/fuzz) for a few seconds over its seed corpus (clang build).
fuzz-smoke: test-deps
	cmake --preset fuzz
	cmake --build --preset fuzz
	ctest --preset fuzz

# The server, app, storage and net suites under ThreadSanitizer (slow: not part of `make test`).
tsan: test-deps
	./scripts/run-tsan.sh

deps:
	./scripts/install-deps.sh

test-deps:
	./scripts/install-deps.sh --test

release: deps
	cmake --preset release
	cmake --build --preset release

perft: release
	./build/release/bin/arbiter-perft chess startpos 6
	./build/release/bin/arbiter-perft xiangqi startpos 5
	./build/release/bin/arbiter-perft draughts startpos 10

# The load benchmark, short: echo baseline, moves at FULL and NORMAL, idle connections,
# stalled spectators, printed against the targets (bench/load/README.md).
load: deps
	cmake --preset release
	cmake --build --preset release --target arbiter-server arbiter-load arbiter-storage-bench
	./scripts/load_report.py --short

format:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format -i

# Fails on any tracked C++ file that `make format` would change (CI runs it).
format-check: test-deps
	git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run -Werror

# clang-tidy (.clang-tidy) over the production code, common/ server/ client/ bench/ (not the
# tests), any finding an error (CI runs it). Uses the `tidy` preset's compile database.
# `make tidy SINCE=main` checks only what changed since main, `make tidy FILES="a.cpp b.hpp"`
# only those files (a header through the files that include it).
tidy: test-deps
	./scripts/run-tidy.sh $(if $(SINCE),--since $(SINCE),$(FILES))

# The idle-connection memory budget (tests/integration/net/net_memory_test.cpp) in the release
# build: under ASan, where `make test` runs it, it is skipped (CI runs this).
net-memory: deps
	cmake --preset release
	cmake --build --preset release --target net_tests
	ctest --preset net-memory

clean:
	rm -rf build
