-- tables.lua - table churn: inserts and removes at both ends and in the
-- middle, rehashing of the hash part, table.sort with a Lua comparator (C
-- calling back into Lua for every comparison), and ipairs/pairs walks.
--   lua tables.lua N     (N scales the work; prints checksums)
local n = tonumber(arg[1]) or 1

local seed = 12345
local function rand(m)
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed % m
end

local h = 0
for i = 1, n do
  local t = {}
  for j = 1, 300 do table.insert(t, rand(100000)) end
  for j = 1, 100 do table.insert(t, 1 + rand(#t), rand(100000)) end
  for j = 1, 80 do table.remove(t, 1 + rand(#t)) end
  for j = 1, 20 do table.remove(t) end
  table.sort(t, function(a, b) return a > b end)
  table.sort(t)
  local map = {}
  for j, v in ipairs(t) do map["k" .. v] = j end
  for j = 1, 150 do map["k" .. t[j]] = nil end
  local sum = 0
  for _, v in pairs(map) do sum = sum + v end
  h = (h * 31 + sum + t[1] + t[#t] + #t) & 0xffffffff
end
print(string.format("tables n=%d hash=%08x", n, h))
print("count pcall 0")
print("count throw 0")
