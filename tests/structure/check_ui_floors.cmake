# Checks that ui/ reads top-down: every #include "..." of a file in UI_DIR that names a file of UI_DIR stays in
# its own folder or goes to a folder on a lower floor. The floors are read from UI_DIR/README.md, one table row
# per folder:  | `folder` | floor | ... |  (the folder `.` is UI_DIR itself). A folder that is not in the table,
# an include of a higher floor, and an include of another folder on the same floor each fail the check with
# one line naming the file, the include and the two floors.
#
#   cmake -DUI_DIR=<repo>/ui -P tests/structure/check_ui_floors.cmake
#
# An include is resolved as the compiler does for a quoted name: beside the including file, then from UI_DIR
# (ui/'s include directory). Names that resolve to neither (core/ headers, Qt) are not ui/'s and not checked.
cmake_minimum_required(VERSION 3.22)
if(NOT UI_DIR OR NOT IS_DIRECTORY "${UI_DIR}")
  message(FATAL_ERROR "check_ui_floors: UI_DIR='${UI_DIR}' is not a folder")
endif()
if(NOT EXISTS "${UI_DIR}/README.md")
  message(FATAL_ERROR "check_ui_floors: ${UI_DIR}/README.md is missing: it lists the floors")
endif()

file(STRINGS "${UI_DIR}/README.md" rows REGEX "^\\| *`[^`]+` *\\| *[0-9]+ *\\|")
set(folders "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "^\\| *`([^`]+)` *\\| *([0-9]+) *\\|" _ "${row}")
  set(folder "${CMAKE_MATCH_1}")
  set(floor "${CMAKE_MATCH_2}") # before the next regex resets CMAKE_MATCH_*
  string(REGEX REPLACE "/$" "" folder "${folder}")
  if(folder STREQUAL "ui" OR folder STREQUAL "")
    set(folder ".")
  endif()
  set(floor_${folder} "${floor}")
  list(APPEND folders "${folder}")
endforeach()
if(NOT folders)
  message(FATAL_ERROR "check_ui_floors: ${UI_DIR}/README.md has no floor table (rows | `folder` | floor | ...)")
endif()

# The folder of a path relative to UI_DIR: its first component, "." for files at the top.
function(ui_folder path out)
  string(FIND "${path}" "/" slash)
  if(slash EQUAL -1)
    set(${out} "." PARENT_SCOPE)
  else()
    string(SUBSTRING "${path}" 0 ${slash} first)
    set(${out} "${first}" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE sources RELATIVE "${UI_DIR}" "${UI_DIR}/*.h" "${UI_DIR}/*.cpp")
list(SORT sources)
set(problems "")
foreach(source IN LISTS sources)
  ui_folder("${source}" from)
  if(NOT DEFINED floor_${from})
    list(APPEND problems "ui/${source}: its folder '${from}' has no floor in ui/README.md")
    continue()
  endif()
  get_filename_component(dir "${UI_DIR}/${source}" DIRECTORY)
  file(STRINGS "${UI_DIR}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS includes)
    string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
    set(name "${CMAKE_MATCH_1}")
    if(EXISTS "${dir}/${name}" AND NOT IS_DIRECTORY "${dir}/${name}")
      file(RELATIVE_PATH target "${UI_DIR}" "${dir}/${name}")
    elseif(EXISTS "${UI_DIR}/${name}" AND NOT IS_DIRECTORY "${UI_DIR}/${name}")
      set(target "${name}")
    else()
      continue() # core/, Qt or generated: not ui/'s
    endif()
    ui_folder("${target}" to)
    if(to STREQUAL from)
      continue()
    endif()
    if(NOT DEFINED floor_${to})
      list(APPEND problems "ui/${source}: includes \"${name}\" from folder '${to}', which has no floor in ui/README.md")
    elseif(floor_${to} GREATER_EQUAL floor_${from})
      if(floor_${to} EQUAL floor_${from})
        set(kind "sideways include")
      else()
        set(kind "upward include")
      endif()
      list(APPEND problems
           "${kind}: ui/${source} (folder '${from}', floor ${floor_${from}}) includes \"${name}\" (folder '${to}', floor ${floor_${to}})")
    endif()
  endforeach()
endforeach()

list(LENGTH sources count)
if(problems)
  # One line each (FATAL_ERROR would wrap them), then the failure.
  foreach(problem IN LISTS problems)
    message(NOTICE "${problem}")
  endforeach()
  list(LENGTH problems broken)
  message(FATAL_ERROR "${broken} include(s) break ui/'s floors: ui/ must read top-down (ui/README.md); move the thing down, or pass a callback")
endif()
message(STATUS "ui/ floors hold: ${count} files, no include goes up or sideways")
