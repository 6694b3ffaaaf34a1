# The two set-up commands: `make run` (build Release, start the server) and `make test` (build
# the sanitizer Debug preset, run every test). Both install their Debian packages first.

.PHONY: run test deps test-deps build release perft format clean

run: deps release
	./build/release/bin/arbiter-perft chess startpos 5
	./build/release/bin/arbiter-perft xiangqi startpos 4
	./build/release/bin/arbiter-perft draughts startpos 8

test: test-deps
	cmake --preset debug-asan
	cmake --build --preset debug-asan
	ctest --preset debug-asan

deps:
	./scripts/install-deps.sh

test-deps:
	./scripts/install-deps.sh --test

release: deps
	cmake --preset release
	cmake --build --preset release

format:
	git ls-files '*.cpp' '*.hpp' | xargs clang-format -i

clean:
	rm -rf build
