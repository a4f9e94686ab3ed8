-- strings.lua - string building the ways Lua programs do it: concatenation
-- in a loop, table.concat, string.format, string.rep, gsub with a Lua
-- callback, find/match/gmatch. Exercises lstrlib.c, lstring.c and the GC.
--   lua strings.lua N     (N scales the work; prints checksums)
local n = tonumber(arg[1]) or 1

local function hash(s, h)
  for i = 1, #s, 7 do h = (h * 31 + s:byte(i)) & 0xffffffff end
  return (h * 31 + #s) & 0xffffffff
end

local h = 0
for i = 1, n do
  local s = ""
  for j = 1, 60 do s = s .. string.char(97 + (i + j) % 26) end
  local parts = {}
  for j = 1, 200 do parts[#parts + 1] = string.format("%d:%s:%5.2f;", j, s:sub(j % 50 + 1, j % 50 + 5), j / 7) end
  local big = table.concat(parts)
  local up = big:gsub("%a+", function(w) return w:upper() end)
  local count = 0
  for num in big:gmatch("(%d+):") do count = count + tonumber(num) end
  local a, b = big:find("100:", 1, true)
  local rep = string.rep("ab", 100 + i % 10, ",")
  h = hash(big, h)
  h = hash(up, h)
  h = hash(rep:reverse(), h)
  h = (h + count + (a or 0) + (b or 0) + #rep:lower()) & 0xffffffff
end
print(string.format("strings n=%d hash=%08x", n, h))
print("count pcall 0")
print("count throw 0")
