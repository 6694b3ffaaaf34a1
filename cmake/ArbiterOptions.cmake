# Warnings and sanitizers as INTERFACE targets, linked by each Arbiter target (never global flags).

add_library(arbiter_warnings INTERFACE)
target_compile_options(arbiter_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wnon-virtual-dtor
  -Wold-style-cast -Woverloaded-virtual -Wimplicit-fallthrough)

add_library(arbiter_sanitizers INTERFACE)
if(ARBITER_FUZZ)
  # libFuzzer builds (clang only, checked in the top-level CMakeLists.txt): every library gets the
  # fuzzer's coverage instrumentation, less the library functions the ignorelist names; only the
  # fuzz executables link libFuzzer's main(). Neither make nor ccache reads the list's content, so
  # the flag names a copy whose name carries the content's hash: a changed list recompiles.
  set(ignorelist ${PROJECT_SOURCE_DIR}/tests/fuzz/coverage_ignorelist.txt)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ignorelist})
  file(SHA1 ${ignorelist} ignorelist_hash)
  string(SUBSTRING ${ignorelist_hash} 0 12 ignorelist_hash)
  set(ignorelist_copy ${CMAKE_BINARY_DIR}/coverage_ignorelist-${ignorelist_hash}.txt)
  configure_file(${ignorelist} ${ignorelist_copy} COPYONLY)
  target_compile_options(arbiter_sanitizers INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
    -fno-sanitize-recover=undefined -fsanitize-coverage-ignorelist=${ignorelist_copy})
  target_link_options(arbiter_sanitizers INTERFACE -fsanitize=address,undefined)
  target_compile_definitions(arbiter_sanitizers INTERFACE _GLIBCXX_ASSERTIONS ARBITER_ENABLE_ASSERTS)
elseif(ARBITER_SANITIZE)
  target_compile_options(arbiter_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(arbiter_sanitizers INTERFACE -fsanitize=address,undefined)
  target_compile_definitions(arbiter_sanitizers INTERFACE _GLIBCXX_ASSERTIONS ARBITER_ENABLE_ASSERTS)
elseif(ARBITER_TSAN)
  target_compile_options(arbiter_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(arbiter_sanitizers INTERFACE -fsanitize=thread)
endif()

# Every Arbiter target links this one: warnings, sanitizers, and includes from the repo root.
add_library(arbiter_defaults INTERFACE)
target_link_libraries(arbiter_defaults INTERFACE arbiter_warnings arbiter_sanitizers)
target_include_directories(arbiter_defaults INTERFACE ${PROJECT_SOURCE_DIR})
