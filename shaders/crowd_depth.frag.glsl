// crowd_depth.frag.glsl - the depth-only pass (shadow maps, depth
// pre-pass): depth comes from the vertex stage, no colour is written.

void main() {
}
