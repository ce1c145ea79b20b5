# pgas_add_mpi_test(<name> <sources>...): one test binary, registered in CTest at 1, 2, 3 and 4
# images as <name>.np<p>, each with a timeout so a hang is a failure.
function(pgas_add_mpi_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE pgas::algorithms pgas_test_main pgas_warnings)
  foreach(np 1 2 3 4)
    add_test(NAME ${name}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PGAS_OVERSUBSCRIBE}
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS})
    # TIMEOUT turns a hang into a failure; PROCESSORS makes `ctest -j` count images, not tests.
    set_tests_properties(${name}.np${np} PROPERTIES TIMEOUT ${PGAS_TEST_TIMEOUT} PROCESSORS ${np}
                         ENVIRONMENT "${PGAS_TEST_ENVIRONMENT}")
  endforeach()
endfunction()

# pgas_add_singleton_test(<name>): runs an existing test binary without a launcher.
function(pgas_add_singleton_test name)
  add_test(NAME ${name}.singleton COMMAND $<TARGET_FILE:${name}>)
  set_tests_properties(${name}.singleton PROPERTIES TIMEOUT ${PGAS_TEST_TIMEOUT}
                       ENVIRONMENT "${PGAS_TEST_ENVIRONMENT}")
endfunction()
