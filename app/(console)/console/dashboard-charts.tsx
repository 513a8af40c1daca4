"use client";

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCompact, formatUsd } from "@/app/_components/format";

type Point = { hour: string; requests: number; tokens: number; errors: number };

/** Ticks: the hour within a day, the day and hour over several days, the date by the day. */
function tickLabel(unit: "hour" | "day", points: number) {
  if (unit === "day") return (iso: string) => iso.slice(5, 10);
  return points > 25 ? (iso: string) => `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : (iso: string) => `${iso.slice(11, 13)}:00`;
}
const pointLabel = (unit: "hour" | "day") => (label: unknown) =>
  unit === "day" ? `${String(label).slice(0, 10)} (UTC)` : `${String(label).slice(0, 13).replace("T", " ")}:00 UTC`;
const axis = { fontSize: 12, fill: "currentColor" };

/** One bar per point of the timeline: an hour or a UTC day (`unit`), starting at `hour`. */
export function TimelineChart({ data, unit, series }: { data: Point[]; unit: "hour" | "day"; series: "requests" | "tokens" }) {
  return (
    <div className="h-64 text-zinc-500">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ left: -16, right: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} vertical={false} />
          <XAxis dataKey="hour" tickFormatter={tickLabel(unit, data.length)} tick={axis} interval="preserveStartEnd" minTickGap={24} />
          <YAxis tick={axis} tickFormatter={(value: number) => formatCompact(value)} allowDecimals={false} />
          <Tooltip labelFormatter={pointLabel(unit)} />
          {series === "requests" ? (
            <>
              <Legend />
              <Bar dataKey="requests" name="Requests" stackId="a" fill="#6366f1" isAnimationActive={false} />
              <Bar dataKey="errors" name="Errors" fill="#ef4444" isAnimationActive={false} />
            </>
          ) : (
            <Bar dataKey="tokens" name="Tokens" fill="#10b981" isAnimationActive={false} />
          )}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ModelChart({ data }: { data: { model: string; requests: number; tokens: number }[] }) {
  return (
    <div className="text-zinc-500" style={{ height: Math.max(120, data.length * 40 + 40) }}>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ left: 24, right: 16 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} horizontal={false} />
          <XAxis type="number" tick={axis} allowDecimals={false} />
          <YAxis type="category" dataKey="model" tick={axis} width={120} tickFormatter={(model: string) => (model.length > 18 ? `${model.slice(0, 17)}…` : model)} />
          <Tooltip />
          <Bar dataKey="requests" name="Requests" fill="#6366f1" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function DailyCostChart({ data }: { data: { day: string; requests: number; costUsd: number }[] }) {
  return (
    <div className="h-56 text-zinc-500">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ left: -8, right: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="currentColor" strokeOpacity={0.15} vertical={false} />
          <XAxis dataKey="day" tickFormatter={(day: string) => day.slice(5)} tick={axis} interval="preserveStartEnd" minTickGap={24} />
          <YAxis tick={axis} tickFormatter={(value: number) => formatUsd(value)} width={72} />
          <Tooltip formatter={(value) => `$${Number(value).toFixed(4)}`} labelFormatter={(label) => `${String(label)} (UTC)`} />
          <Bar dataKey="costUsd" name="Cost" fill="#f59e0b" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
