# PGAS_CHECK_HEADERS: every public header compiles on its own (and twice in one file, so its
# include guard works). Generated translation units in one object library, each reading one
# header first (below); the detail/ headers are the library's own and are checked through the
# public ones.
set(pgas_header_roots ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/runtime/include
                      ${PROJECT_SOURCE_DIR}/algorithms/include)
set(pgas_header_links pgas::algorithms)
if(TARGET pgas::hdf5 AND TARGET pgas::serialization AND TARGET pgas::boost_mpi)
  list(APPEND pgas_header_roots ${PROJECT_SOURCE_DIR}/io/include)
  list(APPEND pgas_header_links pgas::hdf5 pgas::serialization pgas::boost_mpi)
endif()
# A header whose first line of code (after `#pragma once` and comments) includes another is a
# check of that one too: the other is read first, in a fresh translation unit, exactly as in a
# unit of its own. Such included headers get no unit; they are included again at the end of the
# units that read them first (their include guard). 81 units check the 113 headers, in 88 s on
# 2 cores instead of 120.
set(pgas_header_paths "")
foreach(root ${pgas_header_roots})
  file(GLOB_RECURSE headers RELATIVE ${root} CONFIGURE_DEPENDS ${root}/*.hpp)
  foreach(header ${headers})
    set(pgas_header_path_${header} ${root}/${header})
    list(APPEND pgas_header_paths ${header})
  endforeach()
endforeach()
# pgas_first_include_<header>: the header `header` includes before anything else, if it is one of
# these roots' headers. An edit to any header configures again, so the units follow its includes.
foreach(header ${pgas_header_paths})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${pgas_header_path_${header}})
  file(STRINGS ${pgas_header_path_${header}} lines)
  foreach(line IN LISTS lines)
    if(line MATCHES "^#include <([^>]+)>$")
      if(DEFINED pgas_header_path_${CMAKE_MATCH_1})
        set(pgas_first_include_${header} ${CMAKE_MATCH_1})
      endif()
      break()
    elseif(NOT (line STREQUAL "" OR line MATCHES "^//" OR line STREQUAL "#pragma once"))
      break()
    endif()
  endforeach()
endforeach()
# The headers a public header's unit reads first, in turn (detail/ ones included): none of them
# needs a unit of its own.
set(pgas_public_headers "")
set(pgas_read_first "")
foreach(header ${pgas_header_paths})
  if(NOT header MATCHES "/detail/")
    list(APPEND pgas_public_headers ${header})
    set(first ${header})
    while(DEFINED pgas_first_include_${first})
      set(first ${pgas_first_include_${first}})
      list(APPEND pgas_first_chain_${header} ${first})
      list(APPEND pgas_read_first ${first})
    endwhile()
  endif()
endforeach()
set(pgas_header_units "")
foreach(header ${pgas_public_headers})
  if(header IN_LIST pgas_read_first)
    continue()
  endif()
  set(content "#include <${header}>\n#include <${header}>\n")
  foreach(first IN LISTS pgas_first_chain_${header})
    string(APPEND content "#include <${first}>\n")
  endforeach()
  string(MAKE_C_IDENTIFIER ${header} unit)
  set(unit_file ${CMAKE_BINARY_DIR}/header_check/${unit}.cpp)
  file(CONFIGURE OUTPUT ${unit_file} CONTENT "${content}")
  list(APPEND pgas_header_units ${unit_file})
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
