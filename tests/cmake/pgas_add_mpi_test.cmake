# The runs that take other paths through the same binary (peers through MPI, as if off node,
# puts reordered, the smallest message budget) depend on the MPI, not on the compiler: a build
# whose MPI another build already covers (the clang one, beside the g++ one) leaves them out.
option(PGAS_TEST_VARIANTS "Register the test runs that set a path-changing setting" ON)
set(pgas_variant_settings PGAS_SHARED_MEMORY PGAS_ONE_IMAGE_PER_NODE PGAS_IMAGES_PER_NODE
                          PGAS_TEST_REORDER_PUTS PGAS_MESSAGE_BUDGET)

# pgas_run_at(<test name> <binary target> <images> [<extra environment>...]): registers one
# launch of a test binary, with a timeout so a hang is a failure.
function(pgas_run_at test target np)
  if(NOT PGAS_TEST_VARIANTS)
    # By the setting's name, whatever value the run gives it.
    foreach(assignment ${ARGN})
      string(REGEX REPLACE "=.*" "" setting "${assignment}")
      if(setting IN_LIST pgas_variant_settings)
        return()
      endif()
    endforeach()
  endif()
  add_test(NAME ${test}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${PGAS_OVERSUBSCRIBE}
                   ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS})
  # PROCESSORS makes `ctest -j` count images, not tests.
  set_tests_properties(${test} PROPERTIES TIMEOUT ${PGAS_TEST_TIMEOUT} PROCESSORS ${np}
                       ENVIRONMENT "${PGAS_TEST_ENVIRONMENT};${ARGN}")
endfunction()

# pgas_add_mpi_test(<name> <sources>... [IMAGES <p>...] [LIBS <target>...]): one test binary,
# registered in CTest as <name>.np<p> at 1, 2, 3 and 4 images, or at the IMAGES given (tests
# about peers, which would have nothing to check alone). Its units share the precompiled test
# headers (support/precompiled.hpp) unless it links LIBS: those add definitions (Boost's,
# HDF5's) that the headers were not precompiled with, so its units read their own includes.
function(pgas_add_mpi_test name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "IMAGES;LIBS")
  if(NOT arg_IMAGES)
    set(arg_IMAGES 1 2 3 4)
  endif()
  add_executable(${name} ${arg_UNPARSED_ARGUMENTS})
  # Its units compiled together, up to sixteen to a translation unit: they instantiate the same
  # containers and algorithms, which each unit alone would compile and optimise again (a third
  # of these binaries' compile time; four to a unit took a fifth more CPU time than sixteen).
  # Names of a unit's own are then shared with its neighbours: the common ones come from
  # tests/support.
  set_target_properties(${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  target_link_libraries(${name} PRIVATE pgas_test_main pgas_warnings ${arg_LIBS})
  if(NOT arg_LIBS)
    pgas_use_test_headers(${name})
  endif()
  foreach(np ${arg_IMAGES})
    pgas_run_at(${name}.np${np} ${name} ${np})
  endforeach()
endfunction()

# pgas_add_rma_only_test(<name>): runs an existing test binary without mapped peers: images on
# one node otherwise map each other's memory, and peers' elements would never take the MPI
# one-sided paths. At 2 images as <name>.rma_only.np2 (PGAS_SHARED_MEMORY=0: peers on this node
# through MPI), at 3 as <name>.off_node.np3 (PGAS_ONE_IMAGE_PER_NODE=1: every peer as if on
# another node, the paths a job across nodes takes), unless WITHOUT_OFF_NODE.
function(pgas_add_rma_only_test name)
  cmake_parse_arguments(arg "WITHOUT_OFF_NODE" "" "" ${ARGN})
  pgas_run_at(${name}.rma_only.np2 ${name} 2 PGAS_SHARED_MEMORY=0)
  if(NOT arg_WITHOUT_OFF_NODE)
    pgas_run_at(${name}.off_node.np3 ${name} 3 PGAS_ONE_IMAGE_PER_NODE=1)
  endif()
endfunction()

# pgas_add_singleton_test(<name>): runs an existing test binary without a launcher.
function(pgas_add_singleton_test name)
  add_test(NAME ${name}.singleton COMMAND $<TARGET_FILE:${name}>)
  set_tests_properties(${name}.singleton PROPERTIES TIMEOUT ${PGAS_TEST_TIMEOUT}
                       ENVIRONMENT "${PGAS_TEST_ENVIRONMENT}")
endfunction()

# pgas_use_test_headers(<target>): compiles the target's units with the test headers
# precompiled once in pgas_test_main (support/precompiled.hpp), whose flags it must share.
function(pgas_use_test_headers target)
  target_precompile_headers(${target} REUSE_FROM pgas_test_main)
endfunction()

# pgas_give_each_test_its_own_mpi_session_dir(): called at the end of every directory whose
# tests launch MPI. Open MPI 4.1's launcher (and a singleton's) makes its session directory,
# <tmpdir>/ompi.<host>.<uid>, by checking and then creating it: two launches at once under
# `ctest -j` can both find it missing and the second fails to start ("mkdir ... File exists",
# open-mpi/ompi#8510); each finished job removes it again, so the race recurs all through a run.
# A directory of each test's own, under one that exists before any test starts, leaves two
# launches nothing to create together.
function(pgas_give_each_test_its_own_mpi_session_dir)
  if(NOT PGAS_MPI_FAMILY STREQUAL "Open MPI") # MPICH's launcher keeps no session directory
    return()
  endif()
  set(sessions "${CMAKE_BINARY_DIR}/mpi-sessions")
  file(MAKE_DIRECTORY "${sessions}")
  get_directory_property(tests TESTS)
  foreach(test ${tests})
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
                                              "OMPI_MCA_orte_tmpdir_base=${sessions}/${test}")
  endforeach()
endfunction()
