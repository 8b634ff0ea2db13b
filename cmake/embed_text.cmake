# Writes a C++ source defining `std::string_view NAME()` whose text is the
# file INPUT, as a raw string literal (build step of ttm_mcp: the MCP App's
# HTML, src/app/, goes into the binary; nothing is downloaded).
# Usage: cmake -DINPUT=... -DOUTPUT=... -DNAMESPACE=... -DNAME=... -P embed_text.cmake
file(READ "${INPUT}" text)
set(delim "ttm_embed")
string(FIND "${text}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )${delim}\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed_text.cmake: do not edit.\n"
  "#include <string_view>\n"
  "namespace ${NAMESPACE} {\n"
  "std::string_view ${NAME}() {\n"
  "  static constexpr std::string_view text = R\"${delim}(${text})${delim}\";\n"
  "  return text;\n"
  "}\n"
  "} // namespace ${NAMESPACE}\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different
                "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
