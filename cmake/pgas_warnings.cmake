# Warnings for pgas's own targets only (never exported): users' flags are theirs.
add_library(pgas_warnings INTERFACE)
target_compile_options(pgas_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference>
  $<$<AND:$<BOOL:${PGAS_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
# Checked standard-library containers in debug builds, without changing the ABI that
# GoogleTest and Google Benchmark were built with (which _GLIBCXX_DEBUG would).
target_compile_definitions(pgas_warnings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
# Every own target links this one, so it carries the build's own settings too.
include(${CMAKE_CURRENT_LIST_DIR}/pgas_mpi_c_only.cmake)
target_link_libraries(pgas_warnings INTERFACE pgas_mpi_c_only)

# Sanitizers for our own targets (the asan preset): stop at the first report.
option(PGAS_SANITIZE "Build pgas's own targets with AddressSanitizer and UBSan" OFF)
if(PGAS_SANITIZE)
  target_compile_options(pgas_warnings INTERFACE -fsanitize=address,undefined
                         -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(pgas_warnings INTERFACE -fsanitize=address,undefined)
endif()
