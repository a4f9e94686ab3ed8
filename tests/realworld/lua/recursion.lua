-- recursion.lua - deep and wide recursion: naive Fibonacci, Ackermann and a
-- recursive tree build/walk. Every Lua call goes through luaV_execute and
-- luaD_precall; nothing here raises an error.
--   lua recursion.lua N     (N scales the work; prints checksums)
local n = tonumber(arg[1]) or 1

local function fib(k)
  if k < 2 then return k end
  return fib(k - 1) + fib(k - 2)
end

local function ack(m, k)
  if m == 0 then return k + 1 end
  if k == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, k - 1))
end

local function tree(depth)
  if depth == 0 then return { v = 1 } end
  return { v = depth, l = tree(depth - 1), r = tree(depth - 1) }
end

local function walk(t)
  if not t.l then return t.v end
  return t.v + walk(t.l) + walk(t.r)
end

local fibsum, acksum, treesum = 0, 0, 0
for i = 1, n do
  fibsum = fibsum + fib(18 + i % 3)
  acksum = acksum + ack(2, 50 + i % 7)
  treesum = treesum + walk(tree(8 + i % 3))
end
print(string.format("recursion n=%d fib=%d ack=%d tree=%d", n, fibsum, acksum, treesum))
print("count pcall 0")
print("count throw 0")
