/* consumer_draw.h - the consumer's GL frame (consumer_draw.c). */
#ifndef CONSUMER_DRAW_H
#define CONSUMER_DRAW_H

#include "crowd/bake.h"

/* Draws 9 characters of `bake` into an offscreen target of the consumer's
 * own context in each of the five modes; returns the pixels they cover in
 * the mode that covers fewest (0 on failure, printed). */
int consumer_draw(const crowd_bake *bake);

#endif
