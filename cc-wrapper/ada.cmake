# ada.cmake - CMake toolchain file: build a project with every target traced.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<ada>/cc-wrapper/ada.cmake ...         (build tree)
#   cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/ada/ada.cmake ...       (installed)
#
# The compilers become adacc and adac++, which add the instrumentation mode's
# flags to each compile (-pg -mfentry on x86_64 by default; ADA_MODE or
# --ada-mode= choose another: adacc --ada-help) and the ada runtime to each
# link. They are found next to this file, never on PATH, so a project always
# uses the ada it was pointed at: bin/ is ../bin from cc-wrapper/ in the
# source tree and ../../bin from <prefix>/share/ada. The real compilers are gcc and g++ unless ADA_CC and
# ADA_CXX name others; set them for the configure and the build alike.

set(_ada_bin "")
foreach(_ada_dir "${CMAKE_CURRENT_LIST_DIR}/../bin" "${CMAKE_CURRENT_LIST_DIR}/../../bin")
  get_filename_component(_ada_dir "${_ada_dir}" ABSOLUTE)
  if(NOT _ada_bin AND EXISTS "${_ada_dir}/adacc")
    set(_ada_bin "${_ada_dir}")
  endif()
endforeach()

if(NOT _ada_bin)
  message(FATAL_ERROR "ada: no adacc in ${CMAKE_CURRENT_LIST_DIR}/../bin or "
                      "${CMAKE_CURRENT_LIST_DIR}/../../bin (run make in the ada tree first)")
endif()

set(CMAKE_C_COMPILER "${_ada_bin}/adacc")
set(CMAKE_CXX_COMPILER "${_ada_bin}/adac++")
