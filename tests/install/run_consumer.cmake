# Script mode: install, configure the consumer, build it, run it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
file(REMOVE_RECURSE ${PGAS_PREFIX} ${CONSUMER_BUILD})
run(${CMAKE_COMMAND} --install ${PGAS_BUILD_DIR} --prefix ${PGAS_PREFIX})
if(DEFINED EXPECT_REFUSAL)
  # Configuring must fail, saying EXPECT_REFUSAL.
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD}
                          -DCMAKE_PREFIX_PATH=${PGAS_PREFIX} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
                          -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \t\r\n]+" " " said "${out}${err}")
  if(rc EQUAL 0 OR NOT said MATCHES "${EXPECT_REFUSAL}")
    message(FATAL_ERROR "expected a refusal saying '${EXPECT_REFUSAL}'; got (${rc}): ${out}${err}")
  endif()
  message(STATUS "refused: ${said}")
  return()
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -DCMAKE_PREFIX_PATH=${PGAS_PREFIX}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD})
run(${MPIEXEC} -n 2 ${OVERSUBSCRIBE} ${CONSUMER_BUILD}/consumer ${CONSUMER_BUILD})
