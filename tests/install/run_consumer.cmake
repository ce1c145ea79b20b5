# Script mode: install, configure the consumer, build it, run it.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
file(REMOVE_RECURSE ${PGAS_PREFIX} ${CONSUMER_BUILD})
run(${CMAKE_COMMAND} --install ${PGAS_BUILD_DIR} --prefix ${PGAS_PREFIX})
run(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${CONSUMER_BUILD} -DCMAKE_PREFIX_PATH=${PGAS_PREFIX}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER})
run(${CMAKE_COMMAND} --build ${CONSUMER_BUILD})
run(${MPIEXEC} -n 2 ${OVERSUBSCRIBE} ${CONSUMER_BUILD}/consumer ${CONSUMER_BUILD})
