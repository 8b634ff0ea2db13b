# Part of `cmake --install` (cmake/packaging.cmake): the systemd unit, the
# config file and the unit's environment file, placed by the install prefix:
# /usr (the .deb) uses the system's /etc and /lib/systemd/system, any other
# prefix P its own P/etc and P/lib/systemd/system. file(INSTALL) honours
# DESTDIR (cpack's staging directory).
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(ttm_etc /etc)
  set(ttm_units /lib/systemd/system)
else()
  set(ttm_etc "${CMAKE_INSTALL_PREFIX}/etc")
  set(ttm_units "${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
endif()
set(TTM_BIN "${CMAKE_INSTALL_PREFIX}/bin/time-tracker-mcp")
set(TTM_CONFIG "${ttm_etc}/time-tracker-mcp/config.json")
set(TTM_DEFAULTS "${ttm_etc}/default/time-tracker-mcp")
configure_file("${TTM_SOURCE_DIR}/packaging/time-tracker-mcp.service.in"
               "${TTM_STAGE}/time-tracker-mcp.service" @ONLY)
file(INSTALL DESTINATION "${ttm_units}" TYPE FILE
     FILES "${TTM_STAGE}/time-tracker-mcp.service")
# An operator's edited config survives a re-install (the .deb's conffile
# handling does the same for the package).
if(EXISTS "$ENV{DESTDIR}${TTM_CONFIG}")
  message(STATUS "Kept: $ENV{DESTDIR}${TTM_CONFIG} (already there)")
else()
  file(INSTALL DESTINATION "${ttm_etc}/time-tracker-mcp" TYPE FILE
       FILES "${TTM_SOURCE_DIR}/examples/config.json")
endif()
if(EXISTS "$ENV{DESTDIR}${ttm_etc}/default/time-tracker-mcp")
  message(STATUS "Kept: $ENV{DESTDIR}${ttm_etc}/default/time-tracker-mcp")
else()
  file(INSTALL DESTINATION "${ttm_etc}/default" TYPE FILE
       RENAME time-tracker-mcp FILES "${TTM_SOURCE_DIR}/packaging/default")
endif()
