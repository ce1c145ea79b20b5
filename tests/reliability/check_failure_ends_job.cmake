# Script mode: runs PROGRAM on 3 images with ARG and checks that the job fails (non-zero) on
# its own, that no process of it is left behind, and, with EXPECT, that its error output
# matches that regular expression. No limit here is tighter than the CTest timeout (the job
# gets LIMIT seconds, 100 unless given, below it), so a loaded machine cannot fail the test.
# The job's processes carry a token of this run in their environment; only processes with it
# count as left behind, never another run's.
if(NOT DEFINED LIMIT)
  set(LIMIT 100)
endif()
string(RANDOM LENGTH 16 ALPHABET 0123456789abcdef token)
set(token "pgas_failure_run_${token}")
string(TIMESTAMP start "%s")
execute_process(COMMAND ${CMAKE_COMMAND} -E env PGAS_FAILURE_RUN=${token}
                        ${MPIEXEC} -n 3 ${OVERSUBSCRIBE} ${PROGRAM} ${ARG}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT ${LIMIT})
string(TIMESTAMP stop "%s")
math(EXPR seconds "${stop} - ${start}")
if(NOT rc MATCHES "^-?[0-9]+$")
  message(FATAL_ERROR "the job did not end by itself within ${LIMIT} s (${rc}):\n${err}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "the job exited 0 although an image failed")
endif()
if(DEFINED EXPECT AND NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "the job's error output does not say \"${EXPECT}\":\n${err}")
endif()
# Processes the launcher killed may take a moment to vanish: look again while time is left.
while(TRUE)
  execute_process(COMMAND sh -c "grep -lsF -- '${token}' /proc/[0-9]*/environ" OUTPUT_VARIABLE left)
  string(TIMESTAMP now "%s")
  math(EXPR waited "${now} - ${start}")
  if(left STREQUAL "")
    break()
  endif()
  if(waited GREATER ${LIMIT})
    message(FATAL_ERROR "processes of the job left behind after ${waited} s: ${left}")
  endif()
  execute_process(COMMAND sleep 0.5)
endwhile()
message(STATUS "job ended with ${rc} after ${seconds} s, nothing left behind")
