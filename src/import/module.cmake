# Base-colour textures embedded as PNG are decoded with libpng (import_png.c).
target_link_libraries(crowd_import PUBLIC PkgConfig::PNG)
