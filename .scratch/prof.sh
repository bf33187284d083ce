#!/bin/bash
# usage: prof.sh SECONDS BODY  -> profile summary of the server under autocannon
cd /work/main; pkill -f "src/main.ts"; sleep 1; rm -rf /tmp/prof2
(DATABASE_URL=file:${DB:-/tmp/b.db} UPLOAD_DIR=/tmp/bup NODE_ENV=production LOG_LEVEL=warn RATE_LIMIT_MAX=0 PORT=4100 HOST=127.0.0.1 node --cpu-prof --cpu-prof-dir=/tmp/prof2 --import tsx src/main.ts > /tmp/srv.log 2>&1 &)
sleep 4
T=$(curl -s -XPOST localhost:4100/auth/token -H 'content-type: application/json' -d '{"username":"admin","password":"demo-password"}' | sed 's/.*access_token":"\([^"]*\)".*/\1/')
npx autocannon -c 50 -d 3 -m POST -H "content-type: application/json" -H "authorization: Bearer $T" -b "$2" http://127.0.0.1:4100/graphql >/dev/null 2>&1
npx autocannon -c 50 -d $1 -m POST -H "content-type: application/json" -H "authorization: Bearer $T" -b "$2" http://127.0.0.1:4100/graphql 2>&1 | grep -E "Req/Sec|Latency" | head -2
pkill -INT -f "src/main.ts"; sleep 3
node /tmp/prof.mjs $(ls -S /tmp/prof2/*.cpuprofile | head -1) 2>&1 | head -${3:-50}
