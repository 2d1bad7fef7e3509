# validate opens neither libcurl, libssh2 nor libmicrohttpd: they are
# opened by the first call that needs one (lib/dl.h, server/dl_mhd.h),
# as list does libcurl here, for a cluster that does not answer
run: LD_DEBUG=files paictl validate jupyter.json 2>&1 >/dev/null | grep -c 'file=lib\(curl\|ssh2\|microhttpd\)\.so'; LD_DEBUG=files paictl list --uri http://127.0.0.1:9 2>&1 | grep -c 'file=libcurl\.so.* dynamically loaded by'
copy: examples/jupyter.json
=== stdout
0
1
