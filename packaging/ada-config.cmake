# ada-config.cmake - find_package(ada).
#
#   find_package(ada REQUIRED)
#   target_link_libraries(app PRIVATE ada::runtime)   # ada.h and libada.so
#
# ada::runtime gives the API (ada_enable(), ada_snapshot()...) and the runtime.
# Instrumenting needs the compilers to be adacc/adac++, which is chosen before
# project(): configure with -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/ada/ada.cmake
# (ada_TOOLCHAIN_FILE below). Also set: ada_ADACC, ada_ADACXX,
# ada_SYMBOLIZE (the tools' paths) and ada_INSTRUMENTED (the project's
# compilers are adacc/adac++). Relocatable: every path is found from this file's own
# place, <prefix>/lib/cmake/ada.

get_filename_component(_ada_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

# ada.h's functions are weak references, which --as-needed (a toolchain
# default on some distributions) would not count as a need: the runtime is
# linked with --no-as-needed around it, as adacc links it.
if(NOT TARGET ada::runtime)
  add_library(ada::runtime INTERFACE IMPORTED)
  set_target_properties(ada::runtime PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_ada_prefix}/include"
    INTERFACE_LINK_LIBRARIES
      "-Wl,--push-state,--no-as-needed;${_ada_prefix}/lib/libada.so;-Wl,--pop-state")
endif()

set(ada_TOOLCHAIN_FILE "${_ada_prefix}/share/ada/ada.cmake")
set(ada_ADACC "${_ada_prefix}/bin/adacc")
set(ada_ADACXX "${_ada_prefix}/bin/adac++")
set(ada_SYMBOLIZE "${_ada_prefix}/bin/ada-symbolize")

get_filename_component(_ada_cc "${CMAKE_C_COMPILER}" NAME)
get_filename_component(_ada_cxx "${CMAKE_CXX_COMPILER}" NAME)
if(_ada_cc STREQUAL "adacc" OR _ada_cxx STREQUAL "adac++")
  set(ada_INSTRUMENTED TRUE)
else()
  set(ada_INSTRUMENTED FALSE)
  message(STATUS "ada: the compilers are not adacc/adac++, so nothing is instrumented "
                 "(configure with -DCMAKE_TOOLCHAIN_FILE=${ada_TOOLCHAIN_FILE})")
endif()
unset(_ada_cc)
unset(_ada_cxx)
unset(_ada_prefix)
