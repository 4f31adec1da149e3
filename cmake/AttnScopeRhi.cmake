# QRhi is private API in Qt 6.4/6.5 (QtGui/private/qrhi_p.h, target Qt6::GuiPrivate) and public as
# <rhi/qrhi.h> from Qt 6.6. core/gpu/rhicompat.h hides the difference; here we only find the target.
# On 6.4 the GuiPrivate target exists once Gui is found and find_package(... GuiPrivate) fails;
# on 6.10+ it must be asked for explicitly.
if(NOT TARGET Qt6::GuiPrivate)
  find_package(Qt6 REQUIRED COMPONENTS GuiPrivate)
endif()
find_program(ATTNSCOPE_QSB qsb HINTS /usr/lib/qt6/bin ${QT6_INSTALL_PREFIX}/bin)
