-- wrk script: the same change of ConfigMaps a-0 .. a-15 (about 1 KiB of
-- data each) round robin, as a server-side apply (PATCH
-- application/apply-patch+yaml, fieldManager=bench, force) or, with
-- BENCH_PATCH=merge, as a merge patch of the same body.  Used by
-- bench/run for the server-side apply figures.

local counter = 0
local filler = string.rep("x", 56)

function init(args)
    merge = os.getenv("BENCH_PATCH") == "merge"
end

request = function()
    counter = counter + 1
    local name = "a-" .. (counter % 16)
    local data = '"n":"' .. counter .. '"'
    for i = 1, 15 do
        data = data .. ',"k' .. i .. '":"' .. filler .. '"'
    end
    local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'
        .. name .. '"},"data":{' .. data .. '}}'
    if merge then
        return wrk.format("PATCH", wrk.path .. "/" .. name,
            {["Content-Type"] = "application/merge-patch+json"}, body)
    end
    return wrk.format("PATCH", wrk.path .. "/" .. name
        .. "?fieldManager=bench&force=true",
        {["Content-Type"] = "application/apply-patch+yaml"}, body)
end
