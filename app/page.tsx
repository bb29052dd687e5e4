export default function Home() {
  return <main>Erawatch</main>;
}
