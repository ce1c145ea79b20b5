# PGAS_CHECK_HEADERS: every public header compiles on its own (and twice in one file, so its
# include guard works). One generated translation unit per header, in one object library; the
# detail/ headers are the library's own and are checked through the public ones.
set(pgas_header_roots ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/runtime/include
                      ${PROJECT_SOURCE_DIR}/algorithms/include)
set(pgas_header_links pgas::algorithms)
if(TARGET pgas::hdf5 AND TARGET pgas::serialization AND TARGET pgas::boost_mpi)
  list(APPEND pgas_header_roots ${PROJECT_SOURCE_DIR}/io/include)
  list(APPEND pgas_header_links pgas::hdf5 pgas::serialization pgas::boost_mpi)
endif()
set(pgas_header_units "")
foreach(root ${pgas_header_roots})
  file(GLOB_RECURSE headers RELATIVE ${root} CONFIGURE_DEPENDS ${root}/*.hpp)
  foreach(header ${headers})
    if(header MATCHES "/detail/")
      continue()
    endif()
    string(MAKE_C_IDENTIFIER ${header} unit)
    set(unit_file ${CMAKE_BINARY_DIR}/header_check/${unit}.cpp)
    file(CONFIGURE OUTPUT ${unit_file} CONTENT "#include <${header}>\n#include <${header}>\n")
    list(APPEND pgas_header_units ${unit_file})
  endforeach()
endforeach()
add_library(pgas_header_check OBJECT ${pgas_header_units})
target_link_libraries(pgas_header_check PRIVATE ${pgas_header_links} pgas_warnings)
# What is checked is that each header compiles alone, not what the optimiser makes of it (the
# real units are built optimised): a fifth of each unit's time was code generation.
target_compile_options(pgas_header_check PRIVATE -O0)
# Precompiling the standard and other libraries' headers that pgas's include (one 150 MB
# precompiled header) made the check slower on 2 cores, 2 min 29 s against 2 min 1 s: loading it
# cost each unit more system time than the parsing it saved.
# Its units compile first (ninja 1.11 starts ready units in build.ninja's order, the top
# directory's targets first). Moved to a subdirectory added after the tests, they filled the 36 s
# in which the bad-input catalogue compiled alone at the end, but a clean build of the ci preset
# took 544 s both ways on 2 cores: the contention only moved.
