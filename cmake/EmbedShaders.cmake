# Embeds GLSL files into a C++ source as raw string literals.
# Called at build time: cmake -DOUTPUT=file.cpp -DSOURCES="a.frag;b.vert" -P EmbedShaders.cmake
set(body "")
set(table "")
set(count 0)
foreach(path IN LISTS SOURCES)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" text)
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
