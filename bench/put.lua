-- wrk script: PUT (unconditional update) of ConfigMaps p-0 .. p-15 round
-- robin, each time with a new value.  Used by bench/run for PUT.

local counter = 0

request = function()
    counter = counter + 1
    local name = "p-" .. (counter % 16)
    local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'
        .. name .. '"},"data":{"n":"' .. counter .. '"}}'
    return wrk.format("PUT", wrk.path .. "/" .. name,
        {["Content-Type"] = "application/json"}, body)
end
