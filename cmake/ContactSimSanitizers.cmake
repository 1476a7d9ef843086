# Sanitizer builds and libFuzzer targets (docs/fuzzing.md).
#
# CONTACTSIM_SANITIZE: a -fsanitize= list for every target of the build ("address,undefined" in
# the `asan` preset, "thread" in `tsan`). Our own code and the tests are instrumented; Debian's
# libraries are not, which ASan and UBSan tolerate (they check the instrumented side of each call).
# CONTACTSIM_FUZZ: build the libFuzzer targets of tests/fuzz (clang only).
set(CONTACTSIM_SANITIZE "" CACHE STRING "-fsanitize= list for every target (empty: none)")
option(CONTACTSIM_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang)" OFF)

if(CONTACTSIM_SANITIZE)
  # Stop at the first report, so a finding fails its test instead of scrolling past. Line tables
  # are all a report's stack needs (file:line); full debug info made the sanitizer builds ~20 %
  # slower to compile (as OSS-Fuzz does: -O1 -gline-tables-only, set by the presets).
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(sanitizer_debug_info -gline-tables-only)
  else()
    set(sanitizer_debug_info -g1)
  endif()
  add_compile_options(-fsanitize=${CONTACTSIM_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer ${sanitizer_debug_info})
  add_link_options(-fsanitize=${CONTACTSIM_SANITIZE})
endif()

if(CONTACTSIM_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "CONTACTSIM_FUZZ needs clang (libFuzzer): configure with the `fuzz` preset "
                      "or -DCMAKE_CXX_COMPILER=clang++")
endif()
if(CONTACTSIM_FUZZ)
  # Coverage instrumentation in every library, not only in the fuzz targets: libFuzzer is guided by
  # the code the input reaches (the parsers, the service, the World), so that is what it must see.
  add_compile_options(-fsanitize=fuzzer-no-link)
  add_link_options(-fsanitize=fuzzer-no-link)
endif()
