# --fs-uri is the old spelling of --default-fs: scripts that give it
# get the same expansion and the same conversion
run: paictl expand hello-distributed.json --fs-uri hdfs://nn:9000 >old && paictl expand hello-distributed.json --default-fs hdfs://nn:9000 >new && cmp old new && grep -c '^PAI_DEFAULT_FS_URI=hdfs://nn:9000$' new && paictl convert --to volcano --fs-uri hdfs://nn:9000 hello-distributed.json >old && paictl convert --to volcano --default-fs hdfs://nn:9000 hello-distributed.json >new && cmp old new
copy: examples/hello-distributed.json
=== stdout
4
