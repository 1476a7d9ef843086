# Sanitizer builds and libFuzzer targets (docs/fuzzing.md).
#
# CONTACTSIM_SANITIZE: a -fsanitize= list for every target of the build ("address,undefined" in
# the `asan` preset, "thread" in `tsan`). Our own code and the tests are instrumented; Debian's
# libraries are not, which ASan and UBSan tolerate (they check the instrumented side of each call).
# CONTACTSIM_FUZZ: build the libFuzzer targets of tests/fuzz (clang only).
set(CONTACTSIM_SANITIZE "" CACHE STRING "-fsanitize= list for every target (empty: none)")
# CONTACTSIM_SANITIZE_SKIP: top-level folders whose code is compiled without the sanitizer
# (still linked with its runtime). The `tsan` preset skips the core and the scenes: their
# threading is oneTBB's, whose synchronization ThreadSanitizer cannot see (Debian's TBB is not
# instrumented), and compiling them again under -fsanitize=thread would not fit the test command's
# time (docs/testing.md, "tsan").
set(CONTACTSIM_SANITIZE_SKIP "" CACHE STRING
    "Top-level folders compiled without CONTACTSIM_SANITIZE (a ;-list, e.g. core;scenes)")
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
  set(CONTACTSIM_SANITIZER_COMPILE_OPTIONS -fsanitize=${CONTACTSIM_SANITIZE}
      -fno-sanitize-recover=all -fno-omit-frame-pointer ${sanitizer_debug_info})
  add_compile_options(${CONTACTSIM_SANITIZER_COMPILE_OPTIONS})
  add_link_options(-fsanitize=${CONTACTSIM_SANITIZE})
endif()

# Called first in a top-level folder's CMakeLists.txt: when CONTACTSIM_SANITIZE_SKIP names
# `folder`, its targets (and those of its subfolders) compile without the sanitizer's options.
function(contactsim_sanitize_folder folder)
  if(CONTACTSIM_SANITIZE AND folder IN_LIST CONTACTSIM_SANITIZE_SKIP)
    get_directory_property(options COMPILE_OPTIONS)
    list(REMOVE_ITEM options ${CONTACTSIM_SANITIZER_COMPILE_OPTIONS})
    set_directory_properties(PROPERTIES COMPILE_OPTIONS "${options}")
    message(STATUS "${folder}/: compiled without -fsanitize=${CONTACTSIM_SANITIZE}")
  endif()
endfunction()

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
