# Runs the ccd_query tool once and checks its exit code, standard error and standard output.
#
#   cmake -DCCD_QUERY=<exe> -DINPUT=<file> [-DUSE_STDIN=ON] [-DARGS=a|b|c]
#         [-DEXPECTED=<file>] -DEXPECTED_EXIT=<n> [-DSTDERR_REGEX=<regex>] -P ccd_query_e2e.cmake
#
# INPUT goes as the positional argument, or on standard input with USE_STDIN. ARGS are extra
# arguments separated by '|'. EXPECTED (when given) holds one line per expected stdout line:
# "0", or "1 lo hi" for a reported contact at a time t with lo <= t <= hi; lines starting with
# '#' and blank lines are ignored. STDERR_REGEX must match standard error.

foreach(required CCD_QUERY INPUT EXPECTED_EXIT)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "ccd_query_e2e.cmake: -D${required}=... is required")
  endif()
endforeach()

set(command ${CCD_QUERY})
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  string(REPLACE "|" ";" extra_args "${ARGS}")
  list(APPEND command ${extra_args})
endif()
if(USE_STDIN)
  execute_process(COMMAND ${command} INPUT_FILE ${INPUT}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
else()
  execute_process(COMMAND ${command} ${INPUT}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
endif()
string(REPLACE ";" " " shown_command "${command}")
set(report "command: ${shown_command}\nexit code: ${rc}\nstdout:\n${out}\nstderr:\n${err}")

if(NOT rc EQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "expected exit code ${EXPECTED_EXIT}\n${report}")
endif()
if(DEFINED STDERR_REGEX AND NOT err MATCHES "${STDERR_REGEX}")
  message(FATAL_ERROR "stderr does not match '${STDERR_REGEX}'\n${report}")
endif()

if(DEFINED EXPECTED)
  file(STRINGS ${EXPECTED} expected_lines REGEX "^[^#]")
  list(FILTER expected_lines EXCLUDE REGEX "^[ \t]*$")
  string(REGEX REPLACE "\n$" "" trimmed_out "${out}")
  if(trimmed_out STREQUAL "")
    set(actual_lines "")
  else()
    string(REPLACE "\n" ";" actual_lines "${trimmed_out}")
  endif()
  list(LENGTH expected_lines expected_count)
  list(LENGTH actual_lines actual_count)
  if(NOT expected_count EQUAL actual_count)
    message(FATAL_ERROR "expected ${expected_count} stdout lines, got ${actual_count}\n${report}")
  endif()
  set(index 0)
  foreach(expected_line IN LISTS expected_lines)
    list(GET actual_lines ${index} actual_line)
    math(EXPR index "${index} + 1")
    if(expected_line STREQUAL "0")
      if(NOT actual_line STREQUAL "0")
        message(FATAL_ERROR "stdout line ${index}: expected '0', got '${actual_line}'\n${report}")
      endif()
    elseif(expected_line MATCHES "^1 ([^ ]+) ([^ ]+)$")
      set(lo ${CMAKE_MATCH_1})
      set(hi ${CMAKE_MATCH_2})
      if(NOT actual_line MATCHES "^1 ([-+0-9.eE]+)$")
        message(FATAL_ERROR "stdout line ${index}: expected '1 <t>', got '${actual_line}'\n${report}")
      endif()
      set(t ${CMAKE_MATCH_1})
      # if() compares numbers as doubles.
      if(t LESS lo OR t GREATER hi)
        message(FATAL_ERROR "stdout line ${index}: t = ${t} outside [${lo}, ${hi}]\n${report}")
      endif()
    else()
      message(FATAL_ERROR "bad line in ${EXPECTED}: '${expected_line}'")
    endif()
  endforeach()
endif()
