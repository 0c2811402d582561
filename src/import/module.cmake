# Base-colour textures embedded as PNG are decoded with libpng (import_png.c).
target_link_libraries(crowd_import PUBLIC PkgConfig::PNG)
# glTF samplers are read from the file's JSON with cJSON (gltf_document.c).
target_link_libraries(crowd_import PUBLIC PkgConfig::CJSON)
