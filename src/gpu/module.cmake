# Embeds shaders/*.glsl into the gpu module: a generated C file defines
# crowd_gpu_shader_source(name), regenerated whenever a shader changes.
file(GLOB crowd_gpu_shader_files CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/shaders/*.glsl")
set(crowd_gpu_embedded "${PROJECT_BINARY_DIR}/generated/crowd_gpu_shaders.c")
add_custom_command(
    OUTPUT "${crowd_gpu_embedded}"
    COMMAND "${CMAKE_COMMAND}" "-DSHADER_DIR=${PROJECT_SOURCE_DIR}/shaders"
            "-DOUTPUT=${crowd_gpu_embedded}" -P "${PROJECT_SOURCE_DIR}/src/gpu/embed_shaders.cmake"
    DEPENDS ${crowd_gpu_shader_files} "${PROJECT_SOURCE_DIR}/src/gpu/embed_shaders.cmake"
    COMMENT "Embedding shaders"
    VERBATIM)
target_sources(crowd_gpu_objects PRIVATE "${crowd_gpu_embedded}")
