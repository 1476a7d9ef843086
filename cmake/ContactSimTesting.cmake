# contactsim_add_test(NAME SOURCES ... LIBS ...)
# One GoogleTest binary; its tests are labelled after the folder under tests/ that holds them
# (core, physics, gpu, server, clients), so `ctest -L core` runs one group.
include(GoogleTest)

function(contactsim_add_test name)
  cmake_parse_arguments(ARG "SERIAL" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}/tests" "${CMAKE_CURRENT_SOURCE_DIR}")
  string(REPLACE "/" ";" parts "${rel}")
  list(GET parts 0 label)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gmock GTest::gtest_main
                                        contactsim_warnings)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${name} PRIVATE
    CONTACTSIM_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  # The test's own code at -O1 in a Release build (the last -O wins): the libraries it tests keep
  # -O3, and a test file compiles in ~25 % less CPU (docs/testing.md, "The test command's time").
  # GCC's floating point does not change with the level (no fast-math, no FMA without -march).
  target_compile_options(${name} PRIVATE $<$<CONFIG:Release>:-O1>)
  # In a sanitizer build, every test checks for reports of the processes it started
  # (tests/sanitizers/).
  set(fixture)
  if(CONTACTSIM_SANITIZE)
    set(fixture FIXTURES_REQUIRED sanitizer_reports)
  endif()
  # SERIAL: the test measures wall-clock time (intervals, deadlines, latencies), so it runs with
  # nothing else beside it when the suite runs in parallel (the test preset's jobs).
  set(serial)
  if(ARG_SERIAL)
    set(serial RUN_SERIAL TRUE)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS "${label}" TIMEOUT ${ARG_TIMEOUT} ${fixture}
                       ${serial} DISCOVERY_TIMEOUT 60)
endfunction()
