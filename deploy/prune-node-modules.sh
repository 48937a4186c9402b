#!/bin/sh
# Run in the image after `npm ci --omit=dev --omit=optional`: removes what a running server
# never reads (source maps, TypeScript sources and declarations, documentation, TypeORM's
# browser build). About 240 MB of production dependencies become about 90 MB.
set -eu
find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.md' -o -name '*.markdown' \) -delete
rm -rf node_modules/typeorm/browser
find node_modules -type d -empty -delete
