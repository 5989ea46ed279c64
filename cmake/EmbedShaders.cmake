# Embeds GLSL files into a C++ source as raw string literals.
# Called at build time: cmake -DOUTPUT=file.cpp -DSOURCES="a.frag;b.vert" -P EmbedShaders.cmake
#
# A line `#include "name.glsl"` of a shader is replaced by the text of that
# file of the same folder (one level: an included file includes nothing),
# so that code two stage files share is written once. GLSL itself has no
# #include. A driver's log numbers the lines of a stage file's first
# included file 10001, 10002, ..., of its second 20001, ..., and the stage
# file's own lines as in the file.
cmake_minimum_required(VERSION 3.25)  # a script's policies are its own
set(body "")
set(table "")
set(count 0)
set(kInclude "(^|\n)#include \"([^\"\n]+)\"[ \t]*(\n|$)")

# The text of `path` with its #include lines replaced, in `out`.
function(expand_includes path out)
  get_filename_component(folder "${path}" DIRECTORY)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" rest)
  set(text "")
  set(line 1)      # the line of `path` that `rest` starts at
  set(included 0)
  while(TRUE)
    string(REGEX MATCH "${kInclude}" directive "${rest}")
    if(directive STREQUAL "")
      break()
    endif()
    set(file "${CMAKE_MATCH_2}")
    string(FIND "${rest}" "${directive}" at)
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(LENGTH "${CMAKE_MATCH_1}" leading)
    math(EXPR at "${at} + ${leading}")  # the directive's first character
    string(SUBSTRING "${rest}" 0 ${at} before)
    string(REGEX MATCHALL "\n" newlines "${before}")
    list(LENGTH newlines lines)
    math(EXPR line "${line} + ${lines}")  # the directive's line
    if(NOT EXISTS "${folder}/${file}")
      message(FATAL_ERROR "${name}:${line}: #include \"${file}\": no such file in ${folder}")
    endif()
    file(READ "${folder}/${file}" inserted)
    string(REGEX MATCH "${kInclude}" nested "${inserted}")
    if(NOT nested STREQUAL "")
      message(FATAL_ERROR "${name}:${line}: ${file} has an #include of its own, which is not expanded")
    endif()
    if(NOT inserted MATCHES "\n$")
      string(APPEND inserted "\n")
    endif()
    math(EXPR included "${included} + 1")
    math(EXPR after "${line} + 1")
    string(APPEND text "${before}#line ${included}0001\n${inserted}#line ${after}\n")
    string(LENGTH "${directive}" length)
    math(EXPR length "${length} - ${leading}")
    string(SUBSTRING "${rest}" ${at} -1 rest)
    string(SUBSTRING "${rest}" ${length} -1 rest)
    if(NOT directive MATCHES "\n$")  # the directive ended the file
      set(rest "")
    endif()
    set(line ${after})
  endwhile()
  set(${out} "${text}${rest}" PARENT_SCOPE)
endfunction()

foreach(path IN LISTS SOURCES)
  get_filename_component(name "${path}" NAME)
  expand_includes("${path}" text)
  string(FIND "${text}" ")glsl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${name} contains the raw-string delimiter )glsl\"")
  endif()
  string(APPEND body "static const char kSource${count}[] = R\"glsl(${text})glsl\";\n")
  string(APPEND table "    {\"${name}\", kSource${count}},\n")
  math(EXPR count "${count} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from glsl/ by cmake/EmbedShaders.cmake. Do not edit.\n"
"#include <cstddef>\n"
"#include \"embedded_shaders.hpp\"\n"
"namespace glccl::detail {\n"
"${body}"
"const EmbeddedShader kEmbeddedShaders[] = {\n${table}};\n"
"const std::size_t kEmbeddedShaderCount = ${count};\n"
"}  // namespace glccl::detail\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
