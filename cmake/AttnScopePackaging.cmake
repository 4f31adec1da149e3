# Installation layout and the Debian package.
#   cmake --install build/dev --prefix /some/where   installs the app, models, translations, .desktop, icons
#   cd build/dev && cpack -G DEB                     builds attnscope_<version>_<arch>.deb
# Included from the top-level CMakeLists.txt after the subdirectories (it reads the .qm list from ui/).
include(GNUInstallDirs)

set(ATTNSCOPE_RESOURCES "${PROJECT_SOURCE_DIR}/resources")

# Built-in models: share/attnscope/models/<name>/ (config, weights, tokenizer), found by the model
# catalog relative to the binary (../share/attnscope/models).
if(EXISTS "${ATTNSCOPE_RESOURCES}/models")
  install(DIRECTORY "${ATTNSCOPE_RESOURCES}/models/" DESTINATION ${CMAKE_INSTALL_DATADIR}/attnscope/models
          PATTERN "README*" EXCLUDE PATTERN ".gitattributes" EXCLUDE)
endif()

# Translations: the .qm files are also embedded (:/i18n/); installed copies let translators replace them.
get_property(ATTNSCOPE_QM_FILES GLOBAL PROPERTY ATTNSCOPE_QM_FILES)
if(ATTNSCOPE_QM_FILES)
  install(FILES ${ATTNSCOPE_QM_FILES} DESTINATION ${CMAKE_INSTALL_DATADIR}/attnscope/translations)
endif()

install(FILES "${ATTNSCOPE_RESOURCES}/attnscope.desktop" DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES "${ATTNSCOPE_RESOURCES}/icons/attnscope.svg" DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
foreach(size 16 32 48 64 128 256)
  install(FILES "${ATTNSCOPE_RESOURCES}/icons/attnscope-${size}.png"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME attnscope.png)
endforeach()

set(CPACK_PACKAGE_NAME "attnscope")
set(CPACK_PACKAGE_VENDOR "AttnScope")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "AttnScope shows what every attention head of a transformer does: type a sentence and see the\n"
    "layer x head grid, heatmaps, arcs and per-head statistics; export images and numbers; teach with\n"
    "a presenter mode. Turkish and English user interface.")
set(CPACK_PACKAGE_CONTACT "AttnScope maintainers <attnscope@example.org>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "AttnScope maintainers <attnscope@example.org>")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Library dependencies come from dpkg-shlibdeps (libqt6core6, libqt6gui6, libqt6widgets6, libqt6svg6, ...);
# Qt's platform plugins (xcb, offscreen) are loaded at run time, so shlibdeps cannot see them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
# `attnscope download` speaks HTTPS: libqt6network6 (shlibdeps) loads its TLS plugin over libssl3 (its own
# dependency) and checks the Hub's certificate against the system's CA store, which nothing else pulls in.
string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", ca-certificates")
# OpenBLAS is loaded at run time too (core/model/openblas.h), so shlibdeps cannot see it either.
get_property(attnscope_openblas_soname GLOBAL PROPERTY ATTNSCOPE_OPENBLAS_SONAME)
if(attnscope_openblas_soname STREQUAL "libopenblas.so.0")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libopenblas0")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.org/attnscope")
include(CPack)
