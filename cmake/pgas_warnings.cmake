# Warnings for pgas's own targets only (never exported): users' flags are theirs.
add_library(pgas_warnings INTERFACE)
target_compile_options(pgas_warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
    -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference>
  $<$<AND:$<BOOL:${PGAS_WARNINGS_AS_ERRORS}>,$<CXX_COMPILER_ID:GNU,Clang>>:-Werror>)
# Checked standard-library containers in debug builds, without changing the ABI that
# libboost_mpi was built with (which _GLIBCXX_DEBUG would).
target_compile_definitions(pgas_warnings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
