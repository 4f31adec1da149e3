# ctest -R install/deb: builds the .deb from the already-built tree with cpack, checks that `dpkg -c`
# lists the binary, the CPU kernel modules, the built-in models, the translations, the .desktop file and
# the icon, that the package depends on the Qt 6 runtime, and that the packaged binary runs (extracted,
# headless export). It leaves the unpacked package in WORK_DIR/root for app/tst_packaged_cpu (qemu).
# Arguments: -DBUILD_DIR=<build tree> -DSOURCE_DIR=<source tree> -DWORK_DIR=<scratch folder>
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_deb.cmake: -D${var}=... is required")
  endif()
endforeach()
find_program(DPKG_DEB dpkg-deb REQUIRED)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

execute_process(COMMAND ${CMAKE_CPACK_COMMAND} -G DEB -B "${WORK_DIR}" --config "${BUILD_DIR}/CPackConfig.cmake"
                WORKING_DIRECTORY "${BUILD_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB debs "${WORK_DIR}/attnscope_*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one attnscope_*.deb in ${WORK_DIR}, found: ${debs}")
endif()
message(STATUS "built ${debs}")

execute_process(COMMAND ${DPKG_DEB} -c "${debs}" RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg -c failed")
endif()
set(expected
  ./usr/bin/attnscope
  ./usr/share/attnscope/translations/attnscope_tr.qm
  ./usr/share/attnscope/translations/attnscope_en.qm
  ./usr/share/applications/attnscope.desktop
  ./usr/share/icons/hicolor/scalable/apps/attnscope.svg
  ./usr/share/icons/hicolor/256x256/apps/attnscope.png)
# The CPU kernel modules the build made (core/kernels/cpukernels.h), beside the binary's ../lib.
file(GLOB modules RELATIVE "${BUILD_DIR}/lib/attnscope" "${BUILD_DIR}/lib/attnscope/attnscope_cpu_*.so")
foreach(module ${modules})
  list(APPEND expected ./usr/lib/attnscope/${module})
endforeach()
# Every built-in model folder, and every file in it.
file(GLOB models LIST_DIRECTORIES true "${SOURCE_DIR}/resources/models/*")
foreach(model ${models})
  if(IS_DIRECTORY "${model}")
    get_filename_component(name "${model}" NAME)
    file(GLOB_RECURSE files RELATIVE "${model}" "${model}/*")
    list(APPEND expected "./usr/share/attnscope/models/${name}/")
    foreach(f ${files})
      if(NOT f MATCHES "(^|/)README")
        list(APPEND expected "./usr/share/attnscope/models/${name}/${f}")
      endif()
    endforeach()
  endif()
endforeach()
foreach(path ${expected})
  string(FIND "${listing}" " ${path}\n" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "dpkg -c does not list ${path}:\n${listing}")
  endif()
endforeach()
list(LENGTH expected checked)
message(STATUS "dpkg -c lists all ${checked} expected paths")

execute_process(COMMAND ${DPKG_DEB} -f "${debs}" Depends OUTPUT_VARIABLE depends)
foreach(lib libqt6core6 libqt6gui6 libqt6widgets6 libqt6svg6 libqt6network6 qt6-qpa-plugins ca-certificates)
  string(FIND "${depends}" "${lib}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the package does not depend on ${lib}: ${depends}")
  endif()
endforeach()

# The packaged binary runs with no display and writes a heatmap.
execute_process(COMMAND ${DPKG_DEB} -x "${debs}" "${WORK_DIR}/root" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -x failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        "${WORK_DIR}/root/usr/bin/attnscope" export --model worked-example --text "kedi mindere oturdu"
                        --layer 0 --head 0 --out "${WORK_DIR}/run.png"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK_DIR}/run.png")
  message(FATAL_ERROR "the packaged attnscope did not run (${rc}): ${out} ${err}")
endif()
message(STATUS "the packaged attnscope wrote ${WORK_DIR}/run.png")
