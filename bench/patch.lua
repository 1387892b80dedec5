-- wrk script: merge-patch ConfigMaps p-0 .. p-15 round robin (each
-- connection mostly hits its own object).  Used by bench/run for PATCH.

local counter = 0

request = function()
    counter = counter + 1
    local path = wrk.path .. "/p-" .. (counter % 16)
    local body = '{"data":{"n":"' .. counter .. '"}}'
    return wrk.format("PATCH", path,
        {["Content-Type"] = "application/merge-patch+json"}, body)
end
