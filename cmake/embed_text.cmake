# Embeds a text resource in C++: writes OUT, a header defining `inline constexpr char NAME[]` with
# the text of IN (its leading `/* ... */` header comment line dropped). Run at build time by the
# custom command in CMakeLists.txt, so editing the resource rebuilds what includes the header.
#   cmake -DIN=file.css -DOUT=file_css.hpp -DNAME=kFileCss -P embed_text.cmake
file(READ "${IN}" text)
string(REGEX REPLACE "^/\\*[^\n]*\\*/\n" "" text "${text}")
if(text MATCHES "\\)sparksim_embed\"")
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )sparksim_embed\"")
endif()
file(WRITE "${OUT}.tmp"
     "// Generated from ${IN} by cmake/embed_text.cmake; edit that file, not this one.\n"
     "#pragma once\n\n"
     "inline constexpr char ${NAME}[] = R\"sparksim_embed(${text})sparksim_embed\";\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
