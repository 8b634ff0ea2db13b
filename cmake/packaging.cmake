# Installing and packaging (docs/operations.md, "Installing as a Debian
# service"): `cmake --install` and `cpack -G DEB` install the binary, its man
# page, the example configs, the config file and the systemd unit.

# The man page, written from the built binary's option table (--help-man):
# the flags and their docs cannot drift apart. gzip -n: no timestamp.
set(TTM_MAN_DIR "${PROJECT_BINARY_DIR}/man")
add_custom_command(
  OUTPUT "${TTM_MAN_DIR}/time-tracker-mcp.1" "${TTM_MAN_DIR}/time-tracker-mcp.1.gz"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${TTM_MAN_DIR}"
  COMMAND sh -c "\"$1\" --help-man >\"$2\" && gzip -9n -c \"$2\" >\"$2.gz\""
          sh $<TARGET_FILE:time-tracker-mcp> "${TTM_MAN_DIR}/time-tracker-mcp.1"
  DEPENDS time-tracker-mcp
  COMMENT "Generating the man page time-tracker-mcp.1 (--help-man)"
  VERBATIM)
add_custom_target(ttm_man_page ALL
  DEPENDS "${TTM_MAN_DIR}/time-tracker-mcp.1.gz")

# Relocations read-only after start-up, symbols bound at load (lintian's
# hardening-no-bindnow); only the server's link changes.
target_link_options(time-tracker-mcp PRIVATE -Wl,-z,relro,-z,now)

set(TTM_PACKAGE_MAINTAINER
    "time-tracker-mcp developers <dev@time-tracker-mcp.invalid>"
    CACHE STRING "The .deb's Maintainer (and its changelog's signature)")
string(TIMESTAMP TTM_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(TTM_DOC_STAGE "${PROJECT_BINARY_DIR}/packaging")
configure_file(packaging/changelog.in "${TTM_DOC_STAGE}/changelog" @ONLY)
file(ARCHIVE_CREATE OUTPUT "${TTM_DOC_STAGE}/changelog.gz"
     PATHS "${TTM_DOC_STAGE}/changelog" FORMAT raw COMPRESSION GZip
     COMPRESSION_LEVEL 9 MTIME 0)

set(TTM_DOC_DIR "share/doc/time-tracker-mcp")
install(TARGETS time-tracker-mcp RUNTIME DESTINATION bin)
install(FILES "${TTM_MAN_DIR}/time-tracker-mcp.1.gz"
        DESTINATION share/man/man1)
install(FILES packaging/copyright "${TTM_DOC_STAGE}/changelog.gz"
        DESTINATION "${TTM_DOC_DIR}")
install(DIRECTORY examples/ DESTINATION "${TTM_DOC_DIR}/examples")
# The unit, the config file and /etc/default/... go where the install prefix
# says at install time (a .deb's /usr: /lib/systemd/system and /etc), with
# the binary's and config file's paths written into the unit.
install(CODE "set(TTM_SOURCE_DIR \"${PROJECT_SOURCE_DIR}\")
set(TTM_STAGE \"${TTM_DOC_STAGE}\")")
install(SCRIPT cmake/install_service.cmake)

set(CPACK_PACKAGE_NAME time-tracker-mcp)
set(CPACK_PACKAGE_VENDOR "time-tracker-mcp developers")
set(CPACK_PACKAGE_CONTACT "${TTM_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "MCP server that gives AI agents trusted time")
# Lines of at most 80 characters (lintian); cpack indents them.
string(JOIN "\n" CPACK_PACKAGE_DESCRIPTION
  "time-tracker-mcp serves the Model Context Protocol (MCP) over stdio or"
  "Streamable HTTP: the current time in any zone, date arithmetic, and"
  "tracking sessions that time an agent's tasks, kept in an SQLite journal"
  "that survives restarts. The package runs it as a hardened systemd"
  "service on loopback.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Absolute destinations (/etc, /lib/systemd/system) go under DESTDIR.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_NAME time-tracker-mcp)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TTM_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Shared libraries from dpkg-shlibdeps; tzdata: zones are read at run time.
# The libraries loaded on first use (src/lazy_libs.hpp) are no DT_NEEDED
# entries, so dpkg-shlibdeps cannot see them: named here (their sonames'
# packages on Debian 12).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TTM_LAZY_LIBS)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata, libcurl4, libpq5, libssl3, libsystemd0, libsqlite3-0, libicu72")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "tzdata")
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    "${PROJECT_SOURCE_DIR}/packaging/conffiles;${PROJECT_SOURCE_DIR}/packaging/postinst;${PROJECT_SOURCE_DIR}/packaging/prerm;${PROJECT_SOURCE_DIR}/packaging/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_GENERATOR DEB)
set(CPACK_OUTPUT_FILE_PREFIX "${PROJECT_BINARY_DIR}/package")
include(CPack)
