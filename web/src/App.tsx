// STUB: replaced by the app helper (routes, auth, theme).
export default function App() {
  return <div>Data Agent</div>;
}
