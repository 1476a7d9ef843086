# The sanitizer reports folder of a test run (tests/sanitizers/CMakeLists.txt).
# MODE=clear: REPORTS becomes an empty folder. MODE=check: fails, printing each report, when any
# process of the run wrote one.
if(MODE STREQUAL "clear")
  file(REMOVE_RECURSE "${REPORTS}")
  file(MAKE_DIRECTORY "${REPORTS}")
  return()
endif()
file(GLOB reports "${REPORTS}/*")
if(reports)
  foreach(report IN LISTS reports)
    file(READ "${report}" text)
    message("${report}:\n${text}")
  endforeach()
  list(LENGTH reports count)
  message(FATAL_ERROR "${count} sanitizer report(s), above")
endif()
message(STATUS "no sanitizer reports in ${REPORTS}")
